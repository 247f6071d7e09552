// Label lookup (labels.h): a forwarded store's label first, then the
// value's own, else 0.
#include "labels.h"

#include "value_rules.h"

using namespace llvm;

namespace commanalyzer::pass {

Value *LabelTable::shadowOf(Value *V) const {
  if (!isDataType(V->getType()))
    return RT.zero();
  if (Value *L = forwardedLabel(V))
    return L;
  auto It = Shadows.find(V);
  return It == Shadows.end() ? RT.zero() : It->second;
}

Value *LabelTable::decisionShadowOf(Value *V) const {
  auto It = DecisionShadows.find(V);
  return It == DecisionShadows.end() ? shadowOf(V) : It->second;
}

// The label of the instance a dominating store of V made, if the current
// use (CurrentUse) is one.
Value *LabelTable::forwardedLabel(Value *V) const {
  auto [User, U] = CurrentUse;
  StoreInst *S = Forwarding.storeFor(User, U, V);
  if (!S)
    return nullptr;
  auto L = StoredLabels.find(S);
  return L == StoredLabels.end() ? nullptr : L->second;
}

} // namespace commanalyzer::pass
