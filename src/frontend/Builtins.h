// Builtin names of CAKE expressions (docs/frontend-contract.md, "Builtins").
//
// Plain builtins (lane, warp, num_sms, inf) and builtin namespaces (tid, block, block_dim, grid_dim,
// cluster) are Decls owned by a BuiltinTable that sema creates once per module and keeps alive in
// SemaResult, so NameExpr::decl can point at them.  `tid.x` is MemberExpr(Name tid -> namespace decl, "x");
// `math.index` is MemberExpr(Name math -> RoleStmt, "index").  builtinValueOf() classifies such an
// expression for later stages (codegen maps each value to a PTX special register).
#pragma once
#include "frontend/AST.h"

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace cake {

enum class BuiltinValue : uint8_t {
  TidX, TidY, TidZ, BlockX, BlockY, BlockZ, BlockDimX, BlockDimY, BlockDimZ, GridDimX, GridDimY, GridDimZ,
  ClusterRank, ClusterX, ClusterY, ClusterZ, Lane, Warp, NumSms, Inf,
  RoleIndex, RoleWarp, RoleThread   // ROLE.index / ROLE.warp / ROLE.thread
};

struct BuiltinDecl : Decl {
  bool isNamespace;                       // tid, block, block_dim, grid_dim, cluster
  std::optional<BuiltinValue> value;      // plain builtins
  BuiltinDecl(std::string n, bool ns, std::optional<BuiltinValue> v)
      : Decl(DeclKind::Builtin, std::move(n), {}), isNamespace(ns), value(v) {}
};

class BuiltinTable {
public:
  BuiltinTable();
  const BuiltinDecl *find(std::string_view name) const;
  const std::vector<std::unique_ptr<BuiltinDecl>> &all() const { return decls_; }

private:
  std::vector<std::unique_ptr<BuiltinDecl>> decls_;
};

// Members a builtin namespace has ("x", "y", "z"; cluster also "rank").
std::vector<std::string_view> builtinMembers(std::string_view ns);
// The value of `ns.member`, if it is one.
std::optional<BuiltinValue> builtinMember(std::string_view ns, std::string_view member);
// What a typed expression denotes, when it is a builtin (lane, tid.x, math.index, ...).
std::optional<BuiltinValue> builtinValueOf(const Expr &e);
std::string_view builtinValueName(BuiltinValue v);   // "tid.x", "lane", "ROLE.index"

} // namespace cake
