; The Fortran bindings MPICH exports for the MPI functions of IoCalls.def are
; I/O calls (lower case with one, two or no trailing underscores, and upper
; case), derived from the one list: one name of each layer and group is
; checked here. Not marked: the mpi_f08 link names (MPICH 4.0 implements them
; on PMPI_/MPIR_, which the runtime does not intercept), flang's own I/O
; runtime, a Fortran procedure named after a POSIX call (POSIX and stdio have
; no Fortran bindings), and MPI calls outside the list. A flang module gets no
; unwind cleanups (Fortran has no exceptions).
; REQUIRES: plugin
; RUN: %opt -load-pass-plugin %siotrace -passes=siotrace -pass-remarks=siotrace -S %s -o %t.out.ll 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARKS --implicit-check-not="remark: {{.*}}I/O call"
; RUN: FileCheck %s < %t.out.ll
; RUN: sed 's/^source_filename = "FIRModule"/source_filename = "app.c"/' %s \
; RUN:   | %opt -load-pass-plugin %siotrace -passes=siotrace -S | FileCheck %s --check-prefix=CMODULE

source_filename = "FIRModule"

declare void @mpi_file_write_at_(ptr, ptr, ptr, ptr, ptr, ptr, ptr)
declare void @mpi_file_write_at(ptr, ptr, ptr, ptr, ptr, ptr, ptr)
declare void @mpi_file_write_at__(ptr, ptr, ptr, ptr, ptr, ptr, ptr)
declare void @MPI_FILE_WRITE_AT(ptr, ptr, ptr, ptr, ptr, ptr, ptr)
declare void @mpi_file_iwrite_at_all_(ptr, ptr, ptr, ptr, ptr, ptr, ptr)
declare void @mpi_file_read_ordered_end_(ptr, ptr, ptr, ptr)
declare void @mpi_testsome_(ptr, ptr, ptr, ptr, ptr, ptr)
declare void @mpi_comm_split_(ptr, ptr, ptr, ptr, ptr)
declare void @mpi_barrier_(ptr, ptr)
declare void @mpi_file_write_at_f08ts_(ptr, ptr, ptr, ptr, ptr, ptr, ptr)
declare void @mpi_wait_f08_(ptr, ptr, ptr)
declare void @mpi_comm_rank_(ptr, ptr, ptr)
declare void @write_(ptr, ptr, ptr)
declare ptr @_FortranAioBeginExternalListOutput(i32, ptr, i32)
declare i1 @_FortranAioOutputInteger32(ptr, i32)
declare i32 @_FortranAioEndIoStatement(ptr)

define void @_QQmain(ptr %p, i32 %n) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  call void @mpi_file_write_at_(ptr %p, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p)
  call void @mpi_file_write_at(ptr %p, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p)
  call void @mpi_file_write_at__(ptr %p, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p)
  call void @MPI_FILE_WRITE_AT(ptr %p, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p)
  call void @mpi_file_iwrite_at_all_(ptr %p, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p)
  call void @mpi_file_read_ordered_end_(ptr %p, ptr %p, ptr %p, ptr %p)
  call void @mpi_testsome_(ptr %p, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p)
  call void @mpi_comm_split_(ptr %p, ptr %p, ptr %p, ptr %p, ptr %p)
  call void @mpi_barrier_(ptr %p, ptr %p)
  call void @mpi_file_write_at_f08ts_(ptr %p, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p)
  call void @mpi_wait_f08_(ptr %p, ptr %p, ptr %p)
  call void @mpi_comm_rank_(ptr %p, ptr %p, ptr %p)
  call void @write_(ptr %p, ptr %p, ptr %p)
  %c = call ptr @_FortranAioBeginExternalListOutput(i32 6, ptr %p, i32 3)
  %ok = call i1 @_FortranAioOutputInteger32(ptr %c, i32 %i)
  %e = call i32 @_FortranAioEndIoStatement(ptr %c)
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

; A loop doing only Fortran runtime I/O (PRINT) gets no markers.
define void @_QPprint_only(ptr %p, i32 %n) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %c = call ptr @_FortranAioBeginExternalListOutput(i32 6, ptr %p, i32 3)
  %ok = call i1 @_FortranAioOutputInteger32(ptr %c, i32 %i)
  %e = call i32 @_FortranAioEndIoStatement(ptr %c)
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

; REMARKS: remark: <unknown>:0:0: I/O call to mpi_file_write_at_ gets site id
; REMARKS: remark: <unknown>:0:0: I/O call to mpi_file_write_at gets site id
; REMARKS: remark: <unknown>:0:0: I/O call to mpi_file_write_at__ gets site id
; REMARKS: remark: <unknown>:0:0: I/O call to MPI_FILE_WRITE_AT gets site id
; REMARKS: remark: <unknown>:0:0: I/O call to mpi_file_iwrite_at_all_ gets site id
; REMARKS: remark: <unknown>:0:0: I/O call to mpi_file_read_ordered_end_ gets site id
; REMARKS: remark: <unknown>:0:0: I/O call to mpi_testsome_ gets site id
; REMARKS: remark: <unknown>:0:0: I/O call to mpi_comm_split_ gets site id
; REMARKS: remark: <unknown>:0:0: I/O call to mpi_barrier_ gets site id

; CHECK-LABEL: define void @_QQmain(
; CHECK: call void @__sio_loop_iter(
; CHECK: call void @__sio_site(
; CHECK-NEXT: call void @mpi_file_write_at_(
; CHECK-NEXT: call void @__sio_site(
; CHECK-NEXT: call void @mpi_file_write_at(
; CHECK-NEXT: call void @__sio_site(
; CHECK-NEXT: call void @mpi_file_write_at__(
; CHECK-NEXT: call void @__sio_site(
; CHECK-NEXT: call void @MPI_FILE_WRITE_AT(
; CHECK-NEXT: call void @__sio_site(
; CHECK-NEXT: call void @mpi_file_iwrite_at_all_(
; CHECK-NEXT: call void @__sio_site(
; CHECK-NEXT: call void @mpi_file_read_ordered_end_(
; CHECK-NEXT: call void @__sio_site(
; CHECK-NEXT: call void @mpi_testsome_(
; CHECK-NEXT: call void @__sio_site(
; CHECK-NEXT: call void @mpi_comm_split_(
; CHECK-NEXT: call void @__sio_site(
; CHECK-NEXT: call void @mpi_barrier_(
; CHECK-NEXT: call void @mpi_file_write_at_f08ts_(
; CHECK-NEXT: call void @mpi_wait_f08_(
; CHECK-NEXT: call void @mpi_comm_rank_(
; CHECK-NEXT: call void @write_(
; CHECK-NEXT: call ptr @_FortranAioBeginExternalListOutput(
; CHECK-NOT: invoke
; CHECK-NOT: landingpad
; CHECK: call void @__sio_loop_exit(
; CHECK: ret void
; CHECK-LABEL: define void @_QPprint_only(
; CHECK-NOT: __sio
; CHECK: ret void

; A C module calling the same functions may unwind out of the loop.
; CMODULE: invoke void @mpi_file_write_at_(
; CMODULE: landingpad
