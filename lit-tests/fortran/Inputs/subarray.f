C     Fixed form: every rank owns an 8 x 2 block of an 8 x (2*nprocs)
C     integer array, declared by an MPI subarray type as its file view;
C     two time steps are written collectively with MPI_File_write_all and
C     read back with MPI_File_read_all (MPI-IO only, no POSIX), and the
C     values are checked.
      PROGRAM SUBARR
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROCS, FH, FTYPE, K, I, J, NBAD
      INTEGER GSIZES(2), LSIZES(2), STARTS(2)
      INTEGER A(8, 2), B(8, 2)
      INTEGER(KIND=MPI_OFFSET_KIND) DISP
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      GSIZES(1) = 8
      GSIZES(2) = 2 * NPROCS
      LSIZES(1) = 8
      LSIZES(2) = 2
      STARTS(1) = 0
      STARTS(2) = 2 * RANK
      CALL MPI_TYPE_CREATE_SUBARRAY(2, GSIZES, LSIZES, STARTS,
     &     MPI_ORDER_FORTRAN, MPI_INTEGER, FTYPE, IERR)
      CALL MPI_TYPE_COMMIT(FTYPE, IERR)
      CALL MPI_FILE_OPEN(MPI_COMM_WORLD, 'subarray.dat',
     &     MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, FH, IERR)
      DO 20 K = 0, 1
         DO 11 J = 1, 2
            DO 10 I = 1, 8
               A(I, J) = 1000 * K + 100 * (2 * RANK + J) + I
   10       CONTINUE
   11    CONTINUE
         DISP = 4 * 16 * NPROCS * K
         CALL MPI_FILE_SET_VIEW(FH, DISP, MPI_INTEGER, FTYPE,
     &        'native', MPI_INFO_NULL, IERR)
         CALL MPI_FILE_WRITE_ALL(FH, A, 16, MPI_INTEGER,
     &        MPI_STATUS_IGNORE, IERR)
   20 CONTINUE
      NBAD = 0
      DO 40 K = 0, 1
         DISP = 4 * 16 * NPROCS * K
         CALL MPI_FILE_SET_VIEW(FH, DISP, MPI_INTEGER, FTYPE,
     &        'native', MPI_INFO_NULL, IERR)
         CALL MPI_FILE_READ_ALL(FH, B, 16, MPI_INTEGER,
     &        MPI_STATUS_IGNORE, IERR)
         DO 31 J = 1, 2
            DO 30 I = 1, 8
               IF (B(I, J) .NE. 1000 * K + 100 * (2 * RANK + J) + I)
     &            NBAD = NBAD + 1
   30       CONTINUE
   31    CONTINUE
   40 CONTINUE
      CALL MPI_FILE_CLOSE(FH, IERR)
      CALL MPI_TYPE_FREE(FTYPE, IERR)
      IF (NBAD .NE. 0) CALL MPI_ABORT(MPI_COMM_WORLD, 3, IERR)
      CALL MPI_FINALIZE(IERR)
      END
