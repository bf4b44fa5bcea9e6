// Lexical scopes for name resolution.
//
// A Scope maps names to the Decl that introduced them and links to its parent.  Sema pushes one scope per
// kernel (compile-time parameters, shape variables, parameters), one for the kernel body (locals, shared
// arrays, barriers, roles) and one per nested block (role and loop bodies, if/else branches, elect, {}).
// Lookup walks outwards; a name is visible from its declaration to the end of its block.  Scopes live on
// the C++ stack of the walk (ScopeGuard), so nothing outlives the analysis.
#pragma once
#include "frontend/AST.h"

#include <map>
#include <string>
#include <vector>

namespace cake {

enum class ScopeKind : uint8_t {
  Kernel,       // ct params, shape vars, params
  KernelBody,   // the kernel's outermost block: shared, mbarrier, barrier, role declarations live here
  Block         // any nested block
};

class Scope {
public:
  Scope(ScopeKind kind, Scope *parent) : kind_(kind), parent_(parent) {}
  ScopeKind kind() const { return kind_; }
  Scope *parent() const { return parent_; }

  // Declares `d` under its name here; returns the previous declaration in this scope if there is one
  // (and then does not replace it).
  Decl *declare(Decl &d) {
    auto [it, inserted] = names_.emplace(d.name, &d);
    return inserted ? nullptr : it->second;
  }
  Decl *lookupLocal(const std::string &name) const {
    auto it = names_.find(name);
    return it == names_.end() ? nullptr : it->second;
  }
  // Innermost declaration of `name` visible from this scope, or nullptr.
  Decl *lookup(const std::string &name) const {
    for (const Scope *s = this; s; s = s->parent_)
      if (Decl *d = s->lookupLocal(name)) return d;
    return nullptr;
  }
  // The scope (this or an ancestor) that declares `name`, or nullptr.
  const Scope *findDeclaringScope(const std::string &name) const {
    for (const Scope *s = this; s; s = s->parent_)
      if (s->lookupLocal(name)) return s;
    return nullptr;
  }
  // Every name visible from here (for "did you mean" suggestions).
  std::vector<std::string> visibleNames() const {
    std::vector<std::string> out;
    for (const Scope *s = this; s; s = s->parent_)
      for (const auto &[name, decl] : s->names_) out.push_back(name);
    return out;
  }

private:
  ScopeKind kind_;
  Scope *parent_;
  std::map<std::string, Decl *> names_;
};

} // namespace cake
