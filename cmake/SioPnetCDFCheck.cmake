# Checks that a PnetCDF library links the same MPI library as sio (used by
# SioPnetCDF.cmake; also runnable alone, which is how it is tested:
#   cmake -DLIBRARY=libpnetcdf.so -DMPI_LIBRARY=libmpich.so -P SioPnetCDFCheck.cmake)

# The shared-library names (SONAMEs) that FILE needs, e.g. libmpich.so.12.
function(sio_needed_sonames file out)
  execute_process(COMMAND readelf -d ${file} OUTPUT_VARIABLE dyn RESULT_VARIABLE rc ERROR_QUIET)
  set(names "")
  if(rc EQUAL 0)
    string(REGEX MATCHALL "\\(NEEDED\\)[^[]*\\[[^]]+\\]" needed "${dyn}")
    foreach(n IN LISTS needed)
      string(REGEX REPLACE ".*\\[([^]]+)\\]" "\\1" n "${n}")
      list(APPEND names ${n})
    endforeach()
  endif()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

function(sio_soname file out)
  execute_process(COMMAND readelf -d ${file} OUTPUT_VARIABLE dyn ERROR_QUIET)
  set(name "")
  if(dyn MATCHES "\\(SONAME\\)[^[]*\\[([^]]+)\\]")
    set(name "${CMAKE_MATCH_1}")
  endif()
  set(${out} "${name}" PARENT_SCOPE)
endfunction()

# Fails the configuration when LIBRARY (a PnetCDF shared library) links an MPI
# library other than MPI_LIBRARY (sio's, e.g. MPICH's libmpich.so).
function(sio_check_pnetcdf_mpi library mpi_library)
  sio_soname(${mpi_library} mpi_soname)
  sio_needed_sonames(${library} needed)
  set(pnetcdf_mpi "")
  foreach(n IN LISTS needed)
    if(n MATCHES "^lib(mpi|mpich|mpi_mpifh|open-pal|open-rte)\\.so")
      list(APPEND pnetcdf_mpi ${n})
    endif()
  endforeach()
  if(NOT pnetcdf_mpi)
    message(FATAL_ERROR "sio: the PnetCDF library ${library} links no MPI library that sio can check "
      "(needs: ${needed}); sio needs a shared PnetCDF linked against ${mpi_soname} (MPICH). "
      "Leave SIO_PNETCDF_PREFIX empty to build one from Debian's source package.")
  endif()
  if(NOT pnetcdf_mpi STREQUAL mpi_soname)
    set(hint "")
    if(pnetcdf_mpi MATCHES "libmpi\\.so")
      set(hint " (that is Open MPI: Debian's libpnetcdf is built against Open MPI)")
    endif()
    message(FATAL_ERROR "sio: the PnetCDF library ${library} is linked against ${pnetcdf_mpi}${hint}, "
      "but sio uses ${mpi_soname} (${mpi_library}); mixing two MPI libraries crashes at run time. "
      "Leave SIO_PNETCDF_PREFIX empty to build PnetCDF from Debian's source package against MPICH, "
      "or point it at a PnetCDF built with MPICH's mpicc.mpich.")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  sio_check_pnetcdf_mpi(${LIBRARY} ${MPI_LIBRARY})
  message(STATUS "sio: ${LIBRARY} links the same MPI as ${MPI_LIBRARY}")
endif()
