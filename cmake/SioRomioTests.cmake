# ROMIO's own test programs for lit-tests/romio (the acceptance suite of
# issue 29): scripts/fetch-romio-tests.sh gets them from Debian's MPICH
# source package at the installed MPICH's version, configured as ROMIO's
# configure would, into build/romio-tests (cached in ~/.cache/sio, like
# PnetCDF). Without a deb-src entry the suite is reported unsupported.
# Defines SIO_ROMIO_TEST_DIR (empty when not available).

option(SIO_WITH_ROMIO_TESTS "Fetch ROMIO's tests for lit-tests/romio" ON)
set(SIO_ROMIO_TEST_DIR "")
if(SIO_WITH_ROMIO_TESTS AND SIO_BUILD_TESTS)
  execute_process(
    COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/fetch-romio-tests.sh ${PROJECT_BINARY_DIR}/romio-tests
    RESULT_VARIABLE _sio_romio_rc)
  if(_sio_romio_rc EQUAL 0)
    set(SIO_ROMIO_TEST_DIR ${PROJECT_BINARY_DIR}/romio-tests)
  elseif(_sio_romio_rc EQUAL 2)
    message(WARNING "sio: MPICH's Debian source package is not available (no deb-src entry; "
      "scripts/deps.sh adds it when run as root): lit-tests/romio is unsupported.")
  else()
    message(WARNING "sio: fetching ROMIO's tests failed: lit-tests/romio is unsupported.")
  endif()
endif()
