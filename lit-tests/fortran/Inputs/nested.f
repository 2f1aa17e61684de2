C     Fixed-form twin of nested.f90: offset = 1200*rank + 400*i + 100*j,
C     labelled DO loops.
      PROGRAM NESTED
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, FH, I, J
      INTEGER(KIND=MPI_OFFSET_KIND) OFF
      CHARACTER BUF(100)
      BUF = 'x'
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_FILE_OPEN(MPI_COMM_WORLD, 'nested.dat',
     &     MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, FH, IERR)
      DO 20 I = 0, 2
         DO 10 J = 0, 3
            OFF = 1200_MPI_OFFSET_KIND * RANK + 400 * I + 100 * J
            CALL MPI_FILE_WRITE_AT(FH, OFF, BUF, 100, MPI_BYTE,
     &           MPI_STATUS_IGNORE, IERR)
   10    CONTINUE
   20 CONTINUE
      CALL MPI_FILE_CLOSE(FH, IERR)
      CALL MPI_FINALIZE(IERR)
      END
