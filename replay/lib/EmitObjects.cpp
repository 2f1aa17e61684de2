// The MPI objects of the replay: datatypes rebuilt from their constructors'
// arguments and communicators from their members, made once before replay().
#include "Generator.h"

#include "sio/trace/Handles.h"
#include "sio/trace/Summary.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numeric>
#include <sstream>

namespace sio::replay::detail {

std::vector<std::string> Generator::fieldCpp(const ObjectEntry &object, const std::string &name, bool required) const {
  auto it = object.fields.find(name);
  if (it == object.fields.end() || it->second.empty()) {
    if (required)
      throw UnsupportedTrace("datatype " + std::to_string(object.id) + " (" + object.kind + "): field '" + name +
                             "' is missing");
    return {};
  }
  std::vector<std::string> out;
  for (const Expr &e : it->second)
    out.push_back(exprToCpp(e));
  return out;
}

bool Generator::isLiteralWithin(const std::string &value, int64_t lo, int64_t hi) {
  const char *begin = value.data(), *end = begin + value.size();
  int64_t parsed = 0;
  auto [ptr, error] = std::from_chars(begin, end, parsed);
  return error == std::errc() && ptr == end && begin != end && parsed >= lo && parsed <= hi;
}

std::string Generator::intList(const std::vector<std::string> &values) {
  std::vector<std::string> out;
  for (const auto &v : values)
    out.push_back(isIntLiteral(v) ? v : "toInt(" + v + ")");
  return join(out, ", ");
}

std::string Generator::aintList(const std::vector<std::string> &values) {
  std::vector<std::string> out;
  for (const auto &v : values)
    out.push_back(isAintLiteral(v) ? v : "MPI_Aint(" + v + ")");
  return join(out, ", ");
}

std::string Generator::vectorAssign(const std::string &target, const std::string &elementType,
                                    const std::vector<std::string> &values,
                                    std::string (*array)(const std::string &, const std::vector<std::string> &)) {
  constexpr size_t kInlineMax = 16;
  bool literal = elementType == "int" ? std::all_of(values.begin(), values.end(), isIntLiteral)
                                      : std::all_of(values.begin(), values.end(), isAintLiteral);
  if (values.size() <= kInlineMax || !literal)
    return target + " = {" + (elementType == "int" ? intList(values) : aintList(values)) + "};";
  return "{ " + array("values", values) + " " + target + ".assign(std::begin(values), std::end(values)); }";
}

std::string Generator::intArray(const std::string &name, const std::vector<std::string> &values) {
  bool literal = std::all_of(values.begin(), values.end(), isIntLiteral);
  return std::string(literal ? "static const" : "const") + " int " + name + "[] = {" + intList(values) + "};";
}

std::string Generator::aintArray(const std::string &name, const std::vector<std::string> &values) {
  bool literal = std::all_of(values.begin(), values.end(), isAintLiteral);
  return std::string(literal ? "static const" : "const") + " MPI_Aint " + name + "[] = {" + aintList(values) + "};";
}

std::optional<size_t> Generator::darrayDims(const ObjectEntry &t) {
  auto it = t.fields.find("ints");
  if (it == t.fields.end() || it->second.size() < 3 || !t.fields.count("oldtype"))
    return std::nullopt;
  auto nd = it->second[2].constantValue();
  if (!nd || *nd < 1 || it->second.size() != size_t(4 + 4 * *nd))
    return std::nullopt;
  return size_t(*nd);
}

void Generator::emitDatatype(CodeEmitter &out, const ObjectEntry &t, std::set<int64_t> &done) {
  if (!done.insert(t.id).second)
    return;
  auto old = [&](const std::string &field) -> std::string {
    auto ids = fieldCpp(t, field);
    auto it = t.fields.find(field);
    if (auto id = it->second[0].constantValue())
      if (const ObjectEntry *o = trace_.datatype(*id))
        emitDatatype(out, *o, done);
    return "datatype[" + ids[0] + "]";
  };
  std::string self = "datatype[" + std::to_string(t.id) + "]";
  auto ints = [](const std::vector<std::string> &values, size_t from = 0, size_t n = SIZE_MAX) {
    std::vector<std::string> out;
    for (size_t i = from; i < values.size() && out.size() < n; ++i)
      out.push_back(values[i]);
    return out;
  };
  if (t.kind == "named") {
    if (kNamedDatatypes.count(t.name)) {
      out.line(self + " = " + t.name + ";");
      return;
    }
    auto size = fieldCpp(t, "size", false);
    if (size.empty())
      throw UnsupportedTrace("datatype " + std::to_string(t.id) + ": unknown named type " + cppStringLiteral(t.name) +
                             " without a size");
    approximations_.push_back("datatype " + std::to_string(t.id) + " (named type " + t.name +
                              " unknown here: rebuilt as the same number of bytes)");
    out.comment("named type " + cppStringLiteral(t.name) + " (unknown here): the same number of bytes");
    out.line("PMPI_Type_contiguous(toInt(" + size[0] + "), MPI_BYTE, &" + self + ");");
    out.line("PMPI_Type_commit(&" + self + ");");
    return;
  }
  std::string create;
  const std::string &k = t.kind;
  if (k == "contiguous") {
    create = "PMPI_Type_contiguous(toInt(" + fieldCpp(t, "count")[0] + "), " + old("oldtype") + ", &" + self + ")";
  } else if (k == "vector") {
    create = "PMPI_Type_vector(toInt(" + fieldCpp(t, "count")[0] + "), toInt(" + fieldCpp(t, "blocklength")[0] +
             "), toInt(" + fieldCpp(t, "stride")[0] + "), " + old("oldtype") + ", &" + self + ")";
  } else if (k == "hvector") {
    create = "PMPI_Type_create_hvector(toInt(" + fieldCpp(t, "count")[0] + "), toInt(" + fieldCpp(t, "blocklength")[0] +
             "), MPI_Aint(" + fieldCpp(t, "stride")[0] + "), " + old("oldtype") + ", &" + self + ")";
  } else if (k == "indexed") {
    auto lengths = fieldCpp(t, "blocklengths"), displacements = fieldCpp(t, "displacements");
    out.open("");
    out.line(intArray("lengths", lengths));
    out.line(intArray("displacements", displacements));
    out.line("PMPI_Type_indexed(" + std::to_string(lengths.size()) + ", lengths, displacements, " + old("oldtype") +
             ", &" + self + ");");
    out.close();
  } else if (k == "subarray") {
    auto sizes = fieldCpp(t, "sizes"), subsizes = fieldCpp(t, "subsizes"), starts = fieldCpp(t, "starts");
    out.open("");
    out.line(intArray("sizes", sizes));
    out.line(intArray("subsizes", subsizes));
    out.line(intArray("starts", starts));
    out.line("PMPI_Type_create_subarray(" + std::to_string(sizes.size()) + ", sizes, subsizes, starts, toInt(" +
             fieldCpp(t, "order")[0] + "), " + old("oldtype") + ", &" + self + ");");
    out.close();
  } else if (k == "dup") {
    create = "PMPI_Type_dup(" + old("oldtype") + ", &" + self + ")";
  } else if (k == "resized" && fieldCpp(t, "aints", false).size() == 2) {
    auto aints = fieldCpp(t, "aints");
    create = "PMPI_Type_create_resized(" + old("oldtype") + ", MPI_Aint(" + aints[0] + "), MPI_Aint(" + aints[1] +
             "), &" + self + ")";
  } else if ((k == "hindexed" || k == "indexed_block" || k == "hindexed_block") &&
             !fieldCpp(t, "ints", false).empty()) {
    auto i = fieldCpp(t, "ints"), a = fieldCpp(t, "aints", false);
    out.open("");
    if (k == "hindexed") {
      out.line(intArray("lengths", ints(i, 1)));
      out.line(aintArray("displacements", a));
      out.line("PMPI_Type_create_hindexed(toInt(" + i[0] + "), lengths, displacements, " + old("oldtype") + ", &" +
               self + ");");
    } else if (k == "indexed_block") {
      out.line(intArray("displacements", ints(i, 2)));
      out.line("PMPI_Type_create_indexed_block(toInt(" + i[0] + "), toInt(" + i[1] + "), displacements, " +
               old("oldtype") + ", &" + self + ");");
    } else {
      out.line(aintArray("displacements", a));
      out.line("PMPI_Type_create_hindexed_block(toInt(" + i[0] + "), toInt(" + i[1] + "), displacements, " +
               old("oldtype") + ", &" + self + ");");
    }
    out.close();
  } else if (k == "struct" && fieldCpp(t, "ints", false).size() >= 1 && t.fields.count("types")) {
    // MPI_Type_create_struct(count, lengths, displacements, types): exactly.
    auto i = fieldCpp(t, "ints"), a = fieldCpp(t, "aints", false);
    std::vector<std::string> types;
    for (const Expr &id : t.fields.at("types")) {
      auto c = id.constantValue();
      const ObjectEntry *o = c ? trace_.datatype(*c) : nullptr;
      if (!o)
        throw UnsupportedTrace("datatype " + std::to_string(t.id) + " (struct): a member type is not in the table");
      emitDatatype(out, *o, done);
      types.push_back("datatype[" + std::to_string(*c) + "]");
    }
    if (types.empty() || a.size() != types.size() || i.size() != types.size() + 1)
      throw UnsupportedTrace("datatype " + std::to_string(t.id) + " (struct): inconsistent fields");
    out.open("");
    out.line(intArray("lengths", ints(i, 1)));
    out.line(aintArray("displacements", a));
    out.line("const MPI_Datatype types[] = {" + join(types, ", ") + "};");
    out.line("PMPI_Type_create_struct(" + std::to_string(types.size()) + ", lengths, displacements, types, &" + self +
             ");");
    out.close();
  } else if (k == "darray" && darrayDims(t)) {
    // MPI_Type_create_darray(size, rank, ndims, gsizes, distribs, dargs,
    // psizes, order): exactly, with size and rank as the trace's models.
    const size_t nd = *darrayDims(t);
    auto i = fieldCpp(t, "ints");
    out.open("");
    out.line(intArray("gsizes", ints(i, 3, nd)));
    out.line(intArray("distribs", ints(i, 3 + nd, nd)));
    out.line(intArray("dargs", ints(i, 3 + 2 * nd, nd)));
    out.line(intArray("psizes", ints(i, 3 + 3 * nd, nd)));
    out.line("PMPI_Type_create_darray(toInt(" + i[0] + "), toInt(" + i[1] + "), " + std::to_string(nd) +
             ", gsizes, distribs, dargs, psizes, toInt(" + i[3 + 4 * nd] + "), " + old("oldtype") + ", &" + self +
             ");");
    out.close();
  } else {
    // Kinds the generator cannot rebuild: keep the bytes and the extent,
    // which is what I/O sees, and say so (header comment, start-up note).
    auto size = fieldCpp(t, "size", false), extent = fieldCpp(t, "extent", false);
    if (size.empty())
      throw UnsupportedTrace("datatype " + std::to_string(t.id) + ": kind '" + t.kind + "' cannot be rebuilt");
    approximations_.push_back("datatype " + std::to_string(t.id) + " ('" + t.kind +
                              "') is contiguous bytes with its size and extent");
    out.comment("'" + t.kind + "' type approximated by its size and extent");
    out.open("");
    out.line("MPI_Datatype bytes;");
    out.line("PMPI_Type_contiguous(toInt(" + size[0] + "), MPI_BYTE, &bytes);");
    out.line("PMPI_Type_create_resized(bytes, 0, MPI_Aint(" + (extent.empty() ? size[0] : extent[0]) + "), &" + self +
             ");");
    out.line("PMPI_Type_free(&bytes);");
    out.close();
  }
  if (!create.empty())
    out.line(create + ";");
  out.line("PMPI_Type_commit(&" + self + ");");
  derivedTypes_.push_back(t.id);
}

std::string Generator::members(const ObjectEntry &c) const {
  std::vector<std::string> v;
  for (const char *name : {"member_blocks", "members"})
    if (auto it = c.fields.find(name); it != c.fields.end()) {
      for (const Expr &x : it->second)
        v.push_back(exprToCpp(x));
      return std::string(name) == "members" ? "std::vector<i64>{" + join(v, ", ") + "}"
                                            : "blockRanks({" + join(v, ", ") + "})";
    }
  return "";
}

void Generator::emitMembershipComm(CodeEmitter &out, const ObjectEntry &c) {
  const std::string id = std::to_string(c.id);
  std::string m = members(c);
  if (m.empty()) {
    noteApproximation("communicator " + id + " is MPI_COMM_NULL: the trace does not record its members");
    out.comment("comm[" + id + "]: unknown membership, left MPI_COMM_NULL");
    return;
  }
  noteApproximation("communicator " + id +
                    " (made by a call sio does not intercept) is rebuilt from its members with MPI_Comm_create_group");
  out.comment("comm[" + id + "]: rebuilt from its membership (world ranks)");
  out.open("");
  out.line("const std::vector<i64> members = " + m + ";");
  out.open("if (std::find(members.begin(), members.end(), rank) != members.end())");
  out.line("MPI_Group group = groupOf(members);");
  out.line("mustSucceedMpi(PMPI_Comm_create_group(MPI_COMM_WORLD, group, " + std::to_string(30000 + c.id) + ", &comm[" +
           id + "]));");
  out.line("freeGroup(group);");
  out.close();
  out.close();
}

void Generator::emitMemberGroups(CodeEmitter &out) {
  out.comment("The group of each communicator made by MPI_Comm_create(_group), from its members.");
  out.open("MPI_Group memberGroup(i64 id)");
  out.open("switch (id)");
  for (const auto &c : trace_.comms) {
    std::string m = members(c);
    if ((c.kind != "create" && c.kind != "create_group") || m.empty())
      continue;
    out.line("case " + std::to_string(c.id) + ":");
    out.line("  return groupOf(" + m + ");");
  }
  out.close();
  out.line("return MPI_GROUP_EMPTY; // a rank that got MPI_COMM_NULL");
  out.close();
  out.blank();
}

void Generator::emitObjects(CodeEmitter &out) {
  emitMemberGroups(out);
  out.comment("Communicators, datatypes and infos of the trace, re-created by structure.");
  out.open("void createObjects()");
  for (const auto &c : trace_.comms) {
    if (c.kind == "world")
      out.line("comm[" + std::to_string(c.id) + "] = MPI_COMM_WORLD;");
    else if (c.kind == "self")
      out.line("comm[" + std::to_string(c.id) + "] = MPI_COMM_SELF;");
    else if (c.kind != "other")
      out.comment("comm[" + std::to_string(c.id) + "]: made by its constructor (" + c.kind + ") in replay()");
    else
      emitMembershipComm(out, c);
  }
  // Types the application made with an intercepted constructor are made
  // by that call in replay(); the others (named, or seen only at a use)
  // here, through PMPI so that the replay's trace does not record them.
  std::set<int64_t> done;
  for (const auto &t : trace_.datatypes) {
    if (madeAtEvent(t)) {
      out.comment("datatype " + std::to_string(t.id) + ": " + t.kind + ", made by " + t.name + " in replay()");
      continue;
    }
    out.comment("datatype " + std::to_string(t.id) + ": " + t.kind + (t.name.empty() ? "" : " " + t.name));
    const Rebuild &r = types_.status(t.id);
    if (r.kind == Rebuild::Kind::Impossible || r.kind == Rebuild::Kind::Null) {
      // No replayed call uses it (checkObjects refused those): the null
      // handle stays, and nothing passes it.
      out.comment("not rebuilt (" + r.why + "); only failed or no calls use it");
      continue;
    }
    emitDatatype(out, t, done);
  }
  for (const auto &i : trace_.infos) {
    std::string self = "info[" + std::to_string(i.id) + "]";
    // An info the program made and left empty is not MPI_INFO_NULL: the
    // trace tells them apart, and so does the replay.
    if (i.kind == "null") {
      out.line(self + " = MPI_INFO_NULL;");
      continue;
    }
    out.line("MPI_Info_create(&" + self + ");");
    for (const auto &[key, value] : i.strings)
      out.line("MPI_Info_set(" + self + ", " + cppStringLiteral(key) + ", " + cppStringLiteral(value) + ");");
  }
  out.close();
  out.blank();
  out.open("void freeObjects()");
  std::set<int64_t> freed(derivedTypes_.begin(), derivedTypes_.end());
  for (const auto &t : trace_.datatypes)
    if (madeAtEvent(t))
      freed.insert(t.id);
  for (int64_t id : freed) {
    const std::string slot = "datatype[" + std::to_string(id) + "]";
    out.line("if (" + slot + " != MPI_DATATYPE_NULL)");
    out.line("  PMPI_Type_free(&" + slot + ");");
  }
  if (!freed.empty()) {
    out.line("for (auto &stack : shadowTypes)");
    out.line("  for (MPI_Datatype &t : stack)");
    out.line("    PMPI_Type_free(&t);");
  }
  for (const auto &i : trace_.infos)
    if (i.kind != "null")
      out.line("MPI_Info_free(&info[" + std::to_string(i.id) + "]);");
  out.close();
  out.blank();
}

} // namespace sio::replay::detail
