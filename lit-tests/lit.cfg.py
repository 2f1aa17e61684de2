# -*- Python -*-
# lit configuration for sio. Tools are reached through substitutions only:
# RUN lines never contain relative paths into the build tree.
import os

import lit.formats

config.name = "sio"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".c", ".cpp", ".ll"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.sio_obj_root, "lit-tests")

# FileCheck, not, count, opt and clang come from the pinned LLVM 19 prefix.
config.environment["PATH"] = os.pathsep.join(
    [config.sio_bin_dir, config.llvm_bin_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ("HOME", "TMPDIR", "CI"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# MPICH's process manager on a shared 2-core machine: keep runs deterministic.
config.environment["MPIR_CVAR_CH4_NUM_VCIS"] = "1"
# The runtime's line at exit ("sio: trace written to ...", docs/runtime.md
# "At exit") is off in the tests: many compare a traced run's stderr with the
# untraced one's, and filtering "sio: " lines would hide any other output of
# the runtime (a stray warning) from them. runtime/exit-line.test and
# runtime/launch-names.test turn it on (env -u SIO_QUIET) and check it.
config.environment["SIO_QUIET"] = "1"


def tool(name):
    return os.path.join(config.sio_bin_dir, name)


def lib(name):
    return os.path.join(config.sio_lib_dir, name)


config.substitutions.append(("%shlibext", ".so"))
config.substitutions.append(("%sio-trace", tool("sio-trace")))
config.substitutions.append(("%sio-extrap", tool("sio-extrap")))
config.substitutions.append(("%sio-signature", tool("sio-signature")))
config.substitutions.append(("%sio-instrument", tool("sio-instrument")))
config.substitutions.append(("%sio-cxx", tool("sio-cxx")))
config.substitutions.append(("%sio-cc", tool("sio-cc")))
config.substitutions.append(("%sio-fc", tool("sio-fc")))
config.substitutions.append(("%siotrace-rt", lib("libsiotrace-rt.so")))
config.substitutions.append(("%siotrace", lib("siotrace.so")))
config.substitutions.append(("%sio-prefetch", lib("libsio-prefetch.so")))
config.substitutions.append(("%sio-libdir", config.sio_lib_dir))
config.substitutions.append(("%clangxx", os.path.join(config.llvm_bin_dir, "clang++")))
config.substitutions.append(("%clang", os.path.join(config.llvm_bin_dir, "clang")))
config.substitutions.append(("%opt", os.path.join(config.llvm_bin_dir, "opt")))
config.substitutions.append(("%mpicxx", config.mpicxx))
config.substitutions.append(("%mpicc", config.mpicc))
config.substitutions.append(("%mpifort", getattr(config, "mpifort", "")))
config.substitutions.append(("%mpiexec", config.mpiexec))
# `%expect-exit STATUS CMD...`: lit's shell has no $?, and `not` accepts any
# nonzero status; tools promise exact exit codes (1 = differences, 2 = bad input).
config.substitutions.append(("%expect-exit", config.python + " " + os.path.join(config.test_source_root, "Inputs", "expect-exit.py")))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%srcroot", config.sio_src_root))

# Features: a suite whose component is not built yet is reported unsupported,
# never silently passed.
for feature, path in (("sio-trace", tool("sio-trace")),
                      ("sio-extrap", tool("sio-extrap")),
                      ("sio-signature", tool("sio-signature")),
                      ("sio-instrument", tool("sio-instrument")),
                      ("plugin", lib("siotrace.so")),
                      ("runtime", lib("libsiotrace-rt.so")),
                      ("prefetch", lib("libsio-prefetch.so"))):
    if os.path.exists(path):
        config.available_features.add(feature)
# Fortran (lit-tests/fortran): flang-new-19 found at configure time, so the
# build generated sio-fc (Debian package flang-19; docs/fortran.md).
if os.path.exists(getattr(config, "flang", "")) and os.path.exists(tool("sio-fc")):
    config.available_features.add("flang")
# MPICH's gfortran wrapper, for Fortran programs built without sio (traced
# through LD_PRELOAD).
if os.path.exists(getattr(config, "mpifort", "")):
    config.available_features.add("mpifort")

# PnetCDF built against MPICH (cmake/SioPnetCDF.cmake): lit-tests/pnetcdf.
if getattr(config, "have_pnetcdf", False) and os.path.exists(config.pnetcdf_library):
    config.available_features.add("pnetcdf")
    _pnetcdf_libdir = os.path.dirname(config.pnetcdf_library)
    # pnetcdf-ext/include: sio/part/NcProgram.h, shared by the C test programs.
    config.substitutions.append(("%pnetcdf-cflags", "-I%s -I%s" % (config.pnetcdf_include_dir,
                                                                    os.path.join(config.sio_src_root, "pnetcdf-ext", "include"))))
    config.substitutions.append(("%pnetcdf-libs", "%s -Wl,-rpath,%s" % (config.pnetcdf_library, _pnetcdf_libdir)))
    config.substitutions.append(("%ncmpidump", os.path.join(config.pnetcdf_bin_dir, "ncmpidump")))
    config.substitutions.append(("%ncmpidiff", os.path.join(config.pnetcdf_bin_dir, "ncmpidiff")))
    # libsio-pnetcdf comes first on the link line: its ncmpi_* wrappers win.
    config.substitutions.append(("%sio-pnetcdf-libs", "%s -Wl,-rpath,%s" % (lib("libsio-pnetcdf.so"), config.sio_lib_dir)))
    config.substitutions.append(("%sio-part-merge", tool("sio-part-merge")))
    if os.path.exists(lib("libsio-pnetcdf.so")) and os.path.exists(tool("sio-part-merge")):
        config.available_features.add("sio-pnetcdf")
    # PnetCDF's Fortran interface and its FLASH-IO benchmark, built by
    # scripts/build-pnetcdf.sh when mpifort.mpich works; its fortran.txt says
    # "yes: ..." or "no: <why>", the reason shown here when tests that need it
    # are unsupported.
    _fortran_txt = os.path.join(os.path.dirname(config.pnetcdf_bin_dir), "fortran.txt")
    _fortran = open(_fortran_txt).read().strip() if os.path.exists(_fortran_txt) else "no: %s missing (PnetCDF built before its Fortran interface was)" % _fortran_txt
    _flash = os.path.join(config.pnetcdf_bin_dir, "flash_benchmark_io")
    config.substitutions.append(("%pnetcdf-fflags", "-I%s" % config.pnetcdf_include_dir))
    config.substitutions.append(("%flash-io", _flash))
    if _fortran.startswith("yes") and os.path.exists(getattr(config, "mpifort", "")):
        config.available_features.add("pnetcdf-fortran")
        if os.path.exists(_flash):
            config.available_features.add("flash-io")
        else:
            lit_config.note("PnetCDF's FLASH-IO: %s (tests that REQUIRE flash-io are unsupported)" % _fortran)
    else:
        lit_config.note("PnetCDF's Fortran interface: %s (tests that REQUIRE pnetcdf-fortran are unsupported)" % _fortran)

# bench/throttle's preload library (slow devices for the partitioning and
# prefetch tests); it does not need PnetCDF.
if os.path.exists(lib("libsio-throttle.so")):
    config.available_features.add("throttle")

# Optional outside tools of the report tests (scripts/deps.sh installs them).
import shutil
import subprocess
if shutil.which("otf2-print") and os.path.exists(tool("sio-trace")):
    _help = subprocess.run([tool("sio-trace"), "export", "--help"], capture_output=True, text=True).stdout
    if "not available" not in _help:
        config.available_features.add("otf2")
if shutil.which("chromium"):
    config.available_features.add("chromium")

# MPICH busy-polls: on a 2-core machine two 32-rank runs at once take minutes
# and gigabytes. Directories holding runs above 16 ranks set
#   config.parallelism_group = "sio-mpi-large"
# in their lit.local.cfg, and lit runs those tests one at a time.
lit_config.parallelism_groups["sio-mpi-large"] = 1
