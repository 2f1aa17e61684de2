# PnetCDF for pnetcdf-ext, built against the same MPICH as the rest of sio.
#
# Debian's libpnetcdf is built against Open MPI and crashes in MPICH programs,
# so by default scripts/build-pnetcdf.sh builds PnetCDF 1.12.3 from Debian's
# source package into build/pnetcdf (once; cached, see the script). Set
# SIO_PNETCDF_PREFIX to use another installation: it is checked to link the
# same MPI library as sio. Defines SIO_HAVE_PNETCDF, the imported target
# sio::pnetcdf and SIO_PNETCDF_BIN_DIR (ncmpidump, ncmpidiff).

option(SIO_WITH_PNETCDF "Build pnetcdf-ext on PnetCDF built against MPICH" ON)
set(SIO_PNETCDF_PREFIX "" CACHE PATH
  "An existing PnetCDF installation built against MPICH (empty: build it from Debian's source package into build/pnetcdf)")

set(SIO_HAVE_PNETCDF OFF)
# ON when the PnetCDF is sio's own build (build/pnetcdf): it is installed
# with sio then, next to libsio-pnetcdf.so.
set(SIO_PNETCDF_BUNDLED OFF)

include(${CMAKE_CURRENT_LIST_DIR}/SioPnetCDFCheck.cmake)

if(SIO_WITH_PNETCDF)
  if(SIO_PNETCDF_PREFIX)
    set(_sio_pnetcdf_prefix ${SIO_PNETCDF_PREFIX})
  else()
    set(_sio_pnetcdf_prefix ${PROJECT_BINARY_DIR}/pnetcdf)
    set(SIO_PNETCDF_BUNDLED ON)
    execute_process(
      COMMAND ${CMAKE_COMMAND} -E env SIO_MPICC=${SIO_MPICC}
              bash ${PROJECT_SOURCE_DIR}/scripts/build-pnetcdf.sh ${_sio_pnetcdf_prefix}
      RESULT_VARIABLE _sio_pnetcdf_rc)
    if(_sio_pnetcdf_rc EQUAL 2)
      message(WARNING "sio: PnetCDF's Debian source package is not available (no deb-src entry; "
        "scripts/deps.sh adds it when run as root): pnetcdf-ext is not built and its tests are unsupported.")
      set(_sio_pnetcdf_prefix "")
      set(SIO_PNETCDF_BUNDLED OFF)
    elseif(NOT _sio_pnetcdf_rc EQUAL 0)
      message(FATAL_ERROR "sio: building PnetCDF failed (see ${_sio_pnetcdf_prefix}.log); "
        "configure with -DSIO_WITH_PNETCDF=OFF to build sio without pnetcdf-ext.")
    endif()
  endif()
  if(_sio_pnetcdf_prefix)
    find_path(SIO_PNETCDF_INCLUDE_DIR pnetcdf.h PATHS ${_sio_pnetcdf_prefix}/include NO_DEFAULT_PATH)
    find_library(SIO_PNETCDF_LIBRARY NAMES pnetcdf PATHS ${_sio_pnetcdf_prefix}/lib NO_DEFAULT_PATH)
    if(NOT SIO_PNETCDF_INCLUDE_DIR OR NOT SIO_PNETCDF_LIBRARY)
      message(FATAL_ERROR "sio: no PnetCDF (include/pnetcdf.h, lib/libpnetcdf.so) in ${_sio_pnetcdf_prefix}")
    endif()
    list(GET MPI_C_LIBRARIES 0 _sio_mpi_library)
    sio_check_pnetcdf_mpi(${SIO_PNETCDF_LIBRARY} ${_sio_mpi_library})
    set(SIO_PNETCDF_BIN_DIR ${_sio_pnetcdf_prefix}/bin)
    add_library(sio_pnetcdf_imported SHARED IMPORTED GLOBAL)
    set_target_properties(sio_pnetcdf_imported PROPERTIES
      IMPORTED_LOCATION ${SIO_PNETCDF_LIBRARY}
      INTERFACE_INCLUDE_DIRECTORIES ${SIO_PNETCDF_INCLUDE_DIR})
    target_link_libraries(sio_pnetcdf_imported INTERFACE MPI::MPI_C)
    add_library(sio::pnetcdf ALIAS sio_pnetcdf_imported)
    set(SIO_HAVE_PNETCDF ON)
    message(STATUS "sio: PnetCDF ${SIO_PNETCDF_LIBRARY} (MPI checked: same as sio)")
  endif()
endif()
