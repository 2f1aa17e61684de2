// Every MPI function the runtime calls is a weak reference, and
// libsiotrace-rt does not depend on the MPI library: preloaded into a process
// that is not an MPI program (a shell, a launcher script, `cat` run by
// system()), it loads no MPI and so none of what MPI's libraries do when they
// load (MPICH's UCX installs handlers for SIGHUP, SIGILL, SIGFPE, SIGBUS and
// SIGSEGV: a preloaded shell no longer died of `kill -HUP`). In an MPI program
// the references bind to the program's own MPI library; they are called only
// after MPI_Init. Weak, not just lazily bound: with LD_BIND_NOW a strong
// reference that nothing defines stops the program from starting.
//
// Included before <mpi.h> by every file that calls MPI. The wrappers' PMPI
// functions come from IoCalls.def; the others are listed here, and
// lit-tests/runtime/no-mpi-dependency.test fails on any strong one.
#pragma once

#define SIO_WEAK_PRAGMA(text) _Pragma(#text)
#define SIO_WEAK_PMPI(NAME) SIO_WEAK_PRAGMA(weak P##NAME)
#define SIO_WEAK_MPIIO(NAME) SIO_WEAK_PMPI(NAME)
#define SIO_WEAK_SYNC(NAME) SIO_WEAK_PMPI(NAME)
#define SIO_WEAK_POSIX(NAME)
#define SIO_WEAK_STDIO(NAME)
#define SIO_IO_CALL(NAME, LAYER, ...) SIO_WEAK_##LAYER(NAME)
#include "sio/IoCalls.def"

// Lifecycle, the merge at MPI_Finalize, and reading MPI objects back
// (MpiHandles.cpp).
SIO_WEAK_PMPI(MPI_Init)
SIO_WEAK_PMPI(MPI_Init_thread)
SIO_WEAK_PMPI(MPI_Initialized)
SIO_WEAK_PMPI(MPI_Finalize)
SIO_WEAK_PMPI(MPI_Finalized)
SIO_WEAK_PMPI(MPI_Abort)
SIO_WEAK_PMPI(MPI_Comm_rank)
SIO_WEAK_PMPI(MPI_Comm_size)
SIO_WEAK_PMPI(MPI_Comm_group)
SIO_WEAK_PMPI(MPI_Cartdim_get)
SIO_WEAK_PMPI(MPI_Group_free)
SIO_WEAK_PMPI(MPI_Group_size)
SIO_WEAK_PMPI(MPI_Group_translate_ranks)
SIO_WEAK_PMPI(MPI_Error_class)
SIO_WEAK_PMPI(MPI_Get_count)
SIO_WEAK_PMPI(MPI_Get_elements_x)
SIO_WEAK_PMPI(MPI_Info_get)
SIO_WEAK_PMPI(MPI_Info_get_nkeys)
SIO_WEAK_PMPI(MPI_Info_get_nthkey)
SIO_WEAK_PMPI(MPI_Probe)
SIO_WEAK_PMPI(MPI_Recv)
SIO_WEAK_PMPI(MPI_Send)
SIO_WEAK_PMPI(MPI_Type_get_contents_c)
SIO_WEAK_PMPI(MPI_Type_get_envelope_c)
SIO_WEAK_PMPI(MPI_Type_get_extent_c)
SIO_WEAK_PMPI(MPI_Type_get_name)
SIO_WEAK_PMPI(MPI_Type_size_c)
