// The builtin name table (see Builtins.h).
#include "frontend/Builtins.h"

namespace cake {

namespace {
struct NamespaceMember {
  std::string_view ns, member, full;
  BuiltinValue value;
};
constexpr NamespaceMember kMembers[] = {
    {"tid", "x", "tid.x", BuiltinValue::TidX},           {"tid", "y", "tid.y", BuiltinValue::TidY},
    {"tid", "z", "tid.z", BuiltinValue::TidZ},           {"block", "x", "block.x", BuiltinValue::BlockX},
    {"block", "y", "block.y", BuiltinValue::BlockY},     {"block", "z", "block.z", BuiltinValue::BlockZ},
    {"block_dim", "x", "block_dim.x", BuiltinValue::BlockDimX},
    {"block_dim", "y", "block_dim.y", BuiltinValue::BlockDimY},
    {"block_dim", "z", "block_dim.z", BuiltinValue::BlockDimZ},
    {"grid_dim", "x", "grid_dim.x", BuiltinValue::GridDimX},
    {"grid_dim", "y", "grid_dim.y", BuiltinValue::GridDimY},
    {"grid_dim", "z", "grid_dim.z", BuiltinValue::GridDimZ},
    {"cluster", "rank", "cluster.rank", BuiltinValue::ClusterRank},
    {"cluster", "x", "cluster.x", BuiltinValue::ClusterX}, {"cluster", "y", "cluster.y", BuiltinValue::ClusterY},
    {"cluster", "z", "cluster.z", BuiltinValue::ClusterZ},
};
struct Plain {
  std::string_view name;
  BuiltinValue value;
};
constexpr Plain kPlain[] = {{"lane", BuiltinValue::Lane}, {"warp", BuiltinValue::Warp},
                            {"num_sms", BuiltinValue::NumSms}, {"inf", BuiltinValue::Inf}};
constexpr std::string_view kNamespaces[] = {"tid", "block", "block_dim", "grid_dim", "cluster"};
} // namespace

BuiltinTable::BuiltinTable() {
  for (std::string_view ns : kNamespaces) decls_.push_back(std::make_unique<BuiltinDecl>(std::string(ns), true, std::nullopt));
  for (const Plain &p : kPlain) decls_.push_back(std::make_unique<BuiltinDecl>(std::string(p.name), false, p.value));
}

const BuiltinDecl *BuiltinTable::find(std::string_view name) const {
  for (const auto &d : decls_)
    if (d->name == name) return d.get();
  return nullptr;
}

std::vector<std::string_view> builtinMembers(std::string_view ns) {
  std::vector<std::string_view> out;
  for (const NamespaceMember &m : kMembers)
    if (m.ns == ns) out.push_back(m.member);
  return out;
}

std::optional<BuiltinValue> builtinMember(std::string_view ns, std::string_view member) {
  for (const NamespaceMember &m : kMembers)
    if (m.ns == ns && m.member == member) return m.value;
  return std::nullopt;
}

std::optional<BuiltinValue> builtinValueOf(const Expr &e) {
  if (auto *n = dynCast<NameExpr>(&e)) {
    if (n->decl && n->decl->declKind == DeclKind::Builtin) return static_cast<const BuiltinDecl *>(n->decl)->value;
    return std::nullopt;
  }
  auto *m = dynCast<MemberExpr>(&e);
  if (!m) return std::nullopt;
  auto *base = dynCast<NameExpr>(m->base.get());
  if (!base || !base->decl) return std::nullopt;
  if (base->decl->declKind == DeclKind::Role) {
    if (m->member == "index") return BuiltinValue::RoleIndex;
    if (m->member == "warp") return BuiltinValue::RoleWarp;
    if (m->member == "thread") return BuiltinValue::RoleThread;
    return std::nullopt;
  }
  if (base->decl->declKind == DeclKind::Builtin) return builtinMember(base->decl->name, m->member);
  return std::nullopt;
}

std::string_view builtinValueName(BuiltinValue v) {
  for (const NamespaceMember &m : kMembers)
    if (m.value == v) return m.full;
  for (const Plain &p : kPlain)
    if (p.value == v) return p.name;
  switch (v) {
  case BuiltinValue::RoleIndex: return "ROLE.index";
  case BuiltinValue::RoleWarp: return "ROLE.warp";
  case BuiltinValue::RoleThread: return "ROLE.thread";
  default: return "?";
  }
}

} // namespace cake
