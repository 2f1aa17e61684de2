// PnetCDF's own functions: what the interposed names call on (REAL).
#include "Interpose.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace sio::part::interpose {

void *resolveReal(const char *name) {
  void *p = dlsym(RTLD_NEXT, name);
  if (!p) {
    std::fprintf(stderr,
                 "sio-pnetcdf: error: cannot find PnetCDF's %s (link libsio-pnetcdf before libpnetcdf, or "
                 "LD_PRELOAD it)\n",
                 name);
    std::abort();
  }
  return p;
}

} // namespace sio::part::interpose
