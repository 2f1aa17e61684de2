// sio-part-merge MASTER OUT.nc: turns a partitioned netCDF file (master +
// partition files, docs/partitioning.md) back into one ordinary netCDF file
// with the original dimensions, variables and attributes, for tools that do
// not use sio. Reads through the master with libsio-pnetcdf (so the
// transformation is the one applications see); run it alone or under
// mpiexec, the ranks then share the copy along each variable's first
// dimension. Exit status (docs/cli.md): 0 done, 2 bad usage or a file that
// cannot be read or written.
#include "sio/trace/CommandLine.h"

#include <mpi.h>
#include <pnetcdf.h>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int rank = 0, nprocs = 1;

// The master's partitioning metadata: not copied into the merged file.
/// sio's own attributes of the master: global num_partitions, sio_layout
/// and partition_0 .. partition_{K-1}. Those of the partitioned variables
/// (num_partitions, ndims_org, dimids_org, partition_dim) are hidden by
/// libsio-pnetcdf's ncmpi_inq_varnatts, so a variable's attribute of the
/// same name is the application's and is copied.
bool isPartitionAttribute(int varid, const char *name) {
  if (varid != NC_GLOBAL)
    return false;
  if (std::strcmp(name, "num_partitions") == 0 || std::strcmp(name, "sio_layout") == 0)
    return true;
  if (std::strncmp(name, "partition_", 10) != 0 || name[10] == '\0')
    return false;
  for (const char *c = name + 10; *c; ++c)
    if (*c < '0' || *c > '9')
      return false;
  return true;
}

MPI_Datatype memoryType(nc_type t, size_t &size) {
  switch (t) {
  case NC_BYTE:
    size = 1;
    return MPI_SIGNED_CHAR;
  case NC_CHAR:
    size = 1;
    return MPI_CHAR;
  case NC_UBYTE:
    size = 1;
    return MPI_UNSIGNED_CHAR;
  case NC_SHORT:
    size = 2;
    return MPI_SHORT;
  case NC_USHORT:
    size = 2;
    return MPI_UNSIGNED_SHORT;
  case NC_INT:
    size = 4;
    return MPI_INT;
  case NC_UINT:
    size = 4;
    return MPI_UNSIGNED;
  case NC_FLOAT:
    size = 4;
    return MPI_FLOAT;
  case NC_DOUBLE:
    size = 8;
    return MPI_DOUBLE;
  case NC_INT64:
    size = 8;
    return MPI_LONG_LONG;
  case NC_UINT64:
    size = 8;
    return MPI_UNSIGNED_LONG_LONG;
  default:
    size = 0;
    return MPI_DATATYPE_NULL;
  }
}

struct Failure {
  std::string what;
};

/// The header layout the application's file would have had (libsio-pnetcdf
/// keeps it in the master's global attribute sio_layout, "key=value;..."):
/// PnetCDF's alignment hints for ncmpi_create and ncmpi__enddef's
/// arguments. A master without it (written before) gets PnetCDF's defaults.
struct Layout {
  MPI_Info info = MPI_INFO_NULL;
  bool enddefArgs = false;
  MPI_Offset args[4] = {0, 0, 0, 0}; ///< h_minfree, v_align, v_minfree, r_align
};

Layout readLayout(int ncid, const char *masterPath) {
  Layout l;
  MPI_Offset len = 0;
  if (ncmpi_inq_attlen(ncid, NC_GLOBAL, "sio_layout", &len) != NC_NOERR)
    return l;
  std::string text(size_t(len), '\0');
  if (ncmpi_get_att_text(ncid, NC_GLOBAL, "sio_layout", text.data()) != NC_NOERR)
    return l;
  MPI_Info_create(&l.info);
  const char *argNames[] = {"h_minfree", "v_align", "v_minfree", "r_align"};
  for (size_t pos = 0; pos < text.size();) {
    size_t semi = text.find(';', pos);
    std::string item = text.substr(pos, semi == std::string::npos ? std::string::npos : semi - pos);
    pos = semi == std::string::npos ? text.size() : semi + 1;
    if (item.empty())
      continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw Failure{std::string(masterPath) + ": attribute sio_layout: '" + item + "' is not key=value"};
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    bool arg = false;
    for (int i = 0; i < 4; ++i)
      if (key == argNames[i]) {
        char *end = nullptr;
        l.args[i] = MPI_Offset(std::strtoll(value.c_str(), &end, 10));
        if (value.empty() || *end)
          throw Failure{std::string(masterPath) + ": attribute sio_layout: " + key + "='" + value +
                        "' is not a number"};
        l.enddefArgs = arg = true;
      }
    if (!arg)
      MPI_Info_set(l.info, key.c_str(), value.c_str());
  }
  return l;
}

void check(int err, const std::string &what) {
  if (err != NC_NOERR)
    throw Failure{what + ": " + ncmpi_strerror(err)};
}

void copyAttributes(int in, int out, int varid) {
  int natts = 0;
  check(varid == NC_GLOBAL ? ncmpi_inq_natts(in, &natts) : ncmpi_inq_varnatts(in, varid, &natts), "attributes");
  for (int a = 0; a < natts; ++a) {
    char name[NC_MAX_NAME + 1];
    check(ncmpi_inq_attname(in, varid, a, name), "attribute name");
    if (isPartitionAttribute(varid, name))
      continue;
    check(ncmpi_copy_att(in, varid, name, out, varid), std::string("copying attribute ") + name);
  }
}

/// A variable as the master shows it through libsio-pnetcdf (the original shape).
struct VarInfo {
  std::string name;
  nc_type type = NC_NAT;
  std::vector<int> dims;
};

VarInfo inquireVar(int ncid, int v) {
  char name[NC_MAX_NAME + 1];
  VarInfo info;
  int nd = 0;
  check(ncmpi_inq_varndims(ncid, v, &nd), "variable");
  info.dims.resize(static_cast<size_t>(nd) + 1);
  check(ncmpi_inq_var(ncid, v, name, &info.type, &nd, info.dims.data(), nullptr), "variable");
  info.dims.resize(static_cast<size_t>(nd));
  info.name = name;
  return info;
}

void merge(const char *masterPath, const char *outPath) {
  int in = -1, out = -1;
  // PnetCDF says "Unknown error in file operation" for a directory.
  struct stat st;
  if (stat(masterPath, &st) != 0)
    throw Failure{std::string(masterPath) + ": cannot open: " + std::strerror(errno)};
  if (S_ISDIR(st.st_mode))
    throw Failure{std::string(masterPath) + ": is a directory, not a netCDF file"};
  check(ncmpi_open(MPI_COMM_WORLD, masterPath, NC_NOWRITE, MPI_INFO_NULL, &in),
        std::string(masterPath) + ": cannot open as netCDF");
  int parts = 0;
  if (ncmpi_get_att_int(in, NC_GLOBAL, "num_partitions", &parts) != NC_NOERR)
    throw Failure{std::string(masterPath) + " is not a partitioned master file (no num_partitions attribute)"};
  int format = 0;
  check(ncmpi_inq_format(in, &format), "format");
  int cmode = NC_CLOBBER | (format == NC_FORMAT_CDF5 ? NC_64BIT_DATA : format == NC_FORMAT_CDF2 ? NC_64BIT_OFFSET : 0);
  Layout layout = readLayout(in, masterPath);
  int created = ncmpi_create(MPI_COMM_WORLD, outPath, cmode, layout.info, &out);
  if (layout.info != MPI_INFO_NULL)
    MPI_Info_free(&layout.info);
  check(created, std::string(outPath) + ": cannot create");

  int ndims = 0, nvars = 0, unlim = -1;
  check(ncmpi_inq(in, &ndims, &nvars, nullptr, &unlim), "inquiry");
  MPI_Offset numrecs = 0;
  for (int d = 0; d < ndims; ++d) {
    char name[NC_MAX_NAME + 1];
    MPI_Offset len = 0;
    check(ncmpi_inq_dim(in, d, name, &len), "dimension");
    if (d == unlim)
      numrecs = len;
    int id;
    check(ncmpi_def_dim(out, name, d == unlim ? NC_UNLIMITED : len, &id), std::string("dimension ") + name);
  }
  copyAttributes(in, out, NC_GLOBAL);
  std::vector<VarInfo> vars;
  for (int v = 0; v < nvars; ++v) {
    vars.push_back(inquireVar(in, v));
    const VarInfo &info = vars.back();
    int id;
    check(ncmpi_def_var(out, info.name.c_str(), info.type, int(info.dims.size()), info.dims.data(), &id),
          "variable " + info.name);
    copyAttributes(in, out, v);
  }
  check(layout.enddefArgs ? ncmpi__enddef(out, layout.args[0], layout.args[1], layout.args[2], layout.args[3])
                          : ncmpi_enddef(out),
        "enddef");

  // Data: each variable in slabs of its first dimension, shared by the ranks.
  for (int v = 0; v < nvars; ++v) {
    const std::string &name = vars[size_t(v)].name;
    const std::vector<int> &dims = vars[size_t(v)].dims;
    const nc_type type = vars[size_t(v)].type;
    const int nd = int(dims.size());
    size_t esize = 0;
    MPI_Datatype mt = memoryType(type, esize);
    if (mt == MPI_DATATYPE_NULL)
      throw Failure{"variable " + name + ": unknown type"};
    std::vector<MPI_Offset> len(static_cast<size_t>(nd)), start(static_cast<size_t>(nd), 0),
        count(static_cast<size_t>(nd));
    for (int d = 0; d < nd; ++d)
      check(ncmpi_inq_dimlen(in, dims[d], &len[size_t(d)]), "dimension length");
    if (nd > 0 && dims[0] == unlim)
      len[0] = numrecs;
    MPI_Offset rowElems = 1;
    for (int d = 1; d < nd; ++d)
      rowElems *= len[size_t(d)];
    MPI_Offset rows = nd > 0 ? len[0] : 1;
    // Bound memory: at most ~64 MiB a step.
    MPI_Offset perStep =
        std::max<MPI_Offset>(1, (MPI_Offset(64) << 20) / std::max<MPI_Offset>(1, rowElems * MPI_Offset(esize)));
    MPI_Offset mine0 = rows * rank / nprocs, mine1 = rows * (rank + 1) / nprocs;
    MPI_Offset steps = (rows + nprocs - 1) / nprocs;
    steps = (steps + perStep - 1) / perStep;
    MPI_Allreduce(MPI_IN_PLACE, &steps, 1, MPI_OFFSET, MPI_MAX, MPI_COMM_WORLD);
    std::vector<char> buf;
    for (MPI_Offset s = 0; s < std::max<MPI_Offset>(steps, 1); ++s) {
      MPI_Offset r0 = std::min(mine1, mine0 + s * perStep), r1 = std::min(mine1, r0 + perStep);
      if (nd == 0) { // a scalar: everyone reads and writes the same value
        buf.resize(esize);
        check(ncmpi_get_var_all(in, v, buf.data(), 1, mt), "reading " + name);
        check(ncmpi_put_var_all(out, v, buf.data(), 1, mt), "writing " + name);
        break;
      }
      for (int d = 0; d < nd; ++d) {
        start[size_t(d)] = d == 0 ? r0 : 0;
        count[size_t(d)] = d == 0 ? r1 - r0 : len[size_t(d)];
      }
      MPI_Offset n = (r1 - r0) * rowElems;
      buf.resize(size_t(std::max<MPI_Offset>(n, 1)) * esize);
      check(ncmpi_get_vara_all(in, v, start.data(), count.data(), buf.data(), n, mt), "reading " + name);
      check(ncmpi_put_vara_all(out, v, start.data(), count.data(), buf.data(), n, mt), "writing " + name);
    }
  }
  check(ncmpi_close(out), "closing the output");
  check(ncmpi_close(in), "closing the master");
  if (rank == 0)
    std::printf("sio-part-merge: %s (%d partitions, %d variables) -> %s\n", masterPath, parts, nvars, outPath);
}

constexpr const char *kUsage = R"(usage: sio-part-merge [options] MASTER OUT.nc

Writes the partitioned netCDF file MASTER (with its partition files,
docs/partitioning.md) as one ordinary netCDF file OUT.nc with the original
dimensions, variables and attributes. Run alone or with mpiexec: the ranks
then share the copy along each variable's first dimension.

options:
  -h, --help            this text
  --version             print the version

exit status: 0 written, 2 bad usage or a file that cannot be read or written
(docs/cli.md)
)";

} // namespace

int main(int argc, char **argv) {
  // The command line first, without MPI: --help and a usage error need no
  // MPI_Init (and print once, not once per rank).
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (sio::cli::isHelp(arg)) {
      std::fputs(kUsage, stdout);
      return sio::cli::kExitOk;
    }
    if (arg == "--version") {
      sio::cli::printVersion("sio-part-merge", SIO_VERSION);
      return sio::cli::kExitOk;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      std::fprintf(stderr, "sio-part-merge: error: unknown option '%s'\n(see sio-part-merge --help)\n", arg.c_str());
      return sio::cli::kExitError;
    }
    files.push_back(arg);
  }
  if (files.size() != 2) {
    std::fprintf(stderr,
                 "sio-part-merge: error: expected MASTER and OUT.nc, got %zu file%s\n(see sio-part-merge --help)\n",
                 files.size(), files.size() == 1 ? "" : "s");
    return sio::cli::kExitError;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  int status = sio::cli::kExitOk;
  try {
    merge(files[0].c_str(), files[1].c_str());
  } catch (const Failure &f) {
    std::fprintf(stderr, "sio-part-merge: error: %s\n", f.what.c_str());
    status = sio::cli::kExitError;
    if (nprocs > 1) // the other ranks may wait in a collective call
      MPI_Abort(MPI_COMM_WORLD, status);
  }
  MPI_Finalize();
  return status;
}
