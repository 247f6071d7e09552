// The label rules (value_rules.h). A minimum or maximum is the one place
// where the rule looks beyond the instruction itself: it is a reduction,
// not a copy of the value kept.
#include "value_rules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace commanalyzer::pass {

bool isDataType(Type *T) {
  if (T->isIntOrIntVectorTy() || T->isFPOrFPVectorTy())
    return !isa<ScalableVectorType>(T);
  if (auto *ST = dyn_cast<StructType>(T))
    return !ST->isOpaque() && any_of(ST->elements(), isDataType);
  if (auto *AT = dyn_cast<ArrayType>(T))
    return AT->getNumElements() > 0 && isDataType(AT->getElementType());
  return false;
}

bool hasPointer(Type *T) {
  if (T->isPtrOrPtrVectorTy())
    return true;
  if (auto *ST = dyn_cast<StructType>(T))
    return any_of(ST->elements(), hasPointer);
  if (auto *AT = dyn_cast<ArrayType>(T))
    return AT->getNumElements() > 0 && hasPointer(AT->getElementType());
  return false;
}

bool isRuntimeName(StringRef N) {
  return N.startswith("__ca_") || N.startswith("__commanalyzer_");
}

bool isMathLibName(StringRef N) {
  static const StringSet<> Names = {
      "sqrt",  "cbrt",  "exp",   "exp2",  "expm1", "log",   "log2",
      "log10", "log1p", "pow",   "fabs",  "sin",   "cos",   "tan",
      "asin",  "acos",  "atan",  "atan2", "sinh",  "cosh",  "tanh",
      "floor", "ceil",  "round", "trunc", "rint",  "nearbyint",
      "fmin",  "fmax",  "fmod",  "fma",   "hypot", "erf",   "erfc",
      "copysign", "fdim", "ldexp", "abs", "labs", "llabs"};
  if (Names.contains(N))
    return true;
  // float and long double variants: sqrtf, sqrtl, ...
  return (N.endswith("f") || N.endswith("l")) && N.size() > 1 &&
         Names.contains(N.drop_back());
}

CallKind classifyCall(const CallBase &CB) {
  if (CB.isInlineAsm())
    return CallKind::Opaque;
  const Function *F = CB.getCalledFunction(); // null for indirect calls
  if (!F)
    return CallKind::Protocol;
  if (F->isIntrinsic()) {
    switch (F->getIntrinsicID()) {
    case Intrinsic::memcpy:
    case Intrinsic::memcpy_inline:
    case Intrinsic::memmove:
      return CallKind::MemCpy;
    case Intrinsic::memset:
    case Intrinsic::memset_inline:
      return CallKind::MemSet;
    case Intrinsic::expect:
    case Intrinsic::ssa_copy:
      return CallKind::PassThrough;
    default:
      // fmuladd, fma, sqrt, fabs, exp, pow, minnum, abs, smax, ...; void
      // intrinsics (dbg, lifetime, assume) have no result and no effect here.
      return CallKind::Compute;
    }
  }
  StringRef N = F->getName();
  if (isRuntimeName(N))
    return CallKind::Opaque;
  if (F->isDeclaration()) {
    if (N == "memcpy" || N == "memmove" || N == "__memcpy_chk" ||
        N == "__memmove_chk")
      return CallKind::MemCpy;
    if (N == "memset" || N == "__memset_chk")
      return CallKind::MemSet;
    if (isMathLibName(N))
      return CallKind::Compute;
  }
  return CallKind::Protocol;
}

namespace {

// Does Cond compare exactly A and B (either order, up to casts)?
bool comparesPair(const Value *Cond, const Value *A, const Value *B) {
  const auto *C = dyn_cast<CmpInst>(Cond);
  if (!C)
    return false;
  const Value *X = C->getOperand(0)->stripPointerCasts(),
              *Y = C->getOperand(1)->stripPointerCasts();
  auto strip = [](const Value *V) {
    while (const auto *Cast = dyn_cast<CastInst>(V))
      V = Cast->getOperand(0);
    return V;
  };
  X = strip(X), Y = strip(Y), A = strip(A), B = strip(B);
  return (X == A && Y == B) || (X == B && Y == A);
}

// Does Cond take Taken over Kept only where it compares the two: the
// comparison itself, or a conjunction with it (`if (vdov != 0 && dtf < m)
// m = dtf;`, a minimum over the elements that pass a filter)?
bool takesByComparison(const Value *Cond, const Value *Taken, const Value *Kept) {
  if (comparesPair(Cond, Taken, Kept))
    return true;
  const Value *L = nullptr, *R = nullptr;
  if (const auto *S = dyn_cast<SelectInst>(Cond)) { // `a && b` as LLVM writes it: select a, b, false
    const auto *False = dyn_cast<ConstantInt>(S->getFalseValue());
    if (!False || !False->isZero())
      return false;
    L = S->getCondition(), R = S->getTrueValue();
  } else if (const auto *B = dyn_cast<BinaryOperator>(Cond);
             B && B->getOpcode() == Instruction::And && B->getType()->isIntegerTy(1)) {
    L = B->getOperand(0), R = B->getOperand(1);
  } else {
    return false;
  }
  return takesByComparison(L, Taken, Kept) || takesByComparison(R, Taken, Kept);
}

// The condition of the branch that a two-way phi joins: the head of its
// triangle (the head branches to the other side and to the phi's block) or
// diamond (both sides have the head as their one predecessor).
const Value *joinedCondition(const PHINode &P) {
  if (P.getNumIncomingValues() != 2)
    return nullptr;
  const BasicBlock *B0 = P.getIncomingBlock(0), *B1 = P.getIncomingBlock(1);
  auto head = [](const BasicBlock *B, const BasicBlock *Other) -> const BasicBlock * {
    if (B == Other->getSinglePredecessor())
      return B; // triangle: B branches to Other and to the phi's block
    return B->getSinglePredecessor();
  };
  const BasicBlock *H = head(B0, B1);
  if (!H || H != head(B1, B0))
    return nullptr;
  const auto *Br = dyn_cast<BranchInst>(H->getTerminator());
  return Br && Br->isConditional() ? Br->getCondition() : nullptr;
}

// A minimum or maximum: `m = c < m ? c : m` as a select, or as a phi after
// `if (c < m) m = c;` (a triangle or diamond whose head compares the two
// incoming values). Its result is computed from both, as fmin() is: a
// reduction over every element compared (MPI_Allreduce with MPI_MIN), not
// a copy of the one kept. A filtered one (`if (ok && c < m)`) is too: the
// elements filtered out keep m.
bool isMinMax(const Instruction &I) {
  if (const auto *S = dyn_cast<SelectInst>(&I))
    return takesByComparison(S->getCondition(), S->getTrueValue(), S->getFalseValue());
  const auto *P = dyn_cast<PHINode>(&I);
  const Value *Cond = P ? joinedCondition(*P) : nullptr;
  return Cond && comparesPair(Cond, P->getIncomingValue(0), P->getIncomingValue(1));
}

// `if (ok) { if (c < m) m = c; }`: a phi of a minimum or maximum of m
// (isMinMax) and m itself, after a branch on a filter. It is `m = ok && c <
// m ? c : m`, which is what -O2 makes of it where it can compute c before
// the test, and a minimum over the elements the filter passes: every
// element's test decides it, however few pass, as every MPI process tests
// its own elements and then reduces. Returns the filter, whose label joins
// the phi's (Rule::FilteredPhi), or null.
const Value *minMaxFilter(const PHINode &P) {
  const Value *Filter = joinedCondition(P);
  if (!Filter || comparesPair(Filter, P.getIncomingValue(0), P.getIncomingValue(1)))
    return nullptr; // none, or the minimum itself (isMinMax)
  for (unsigned K = 0; K < 2; ++K) {
    const auto *Updated = dyn_cast<Instruction>(P.getIncomingValue(K));
    const Value *Kept = P.getIncomingValue(1 - K);
    if (!Updated || !isMinMax(*Updated))
      continue;
    for (const Value *Op : Updated->operands())
      if (Op == Kept)
        return Filter;
  }
  return nullptr;
}

} // namespace

bool isMinMaxByItsOwnComparison(const Instruction &I) {
  const auto *S = dyn_cast<SelectInst>(&I);
  return S && comparesPair(S->getCondition(), S->getTrueValue(), S->getFalseValue());
}

Rule ruleFor(const Instruction &I, SmallVectorImpl<Value *> &Ops) {
  auto add = [&](Value *V) {
    if (isDataType(V->getType()))
      Ops.push_back(V);
  };
  switch (I.getOpcode()) {
  case Instruction::PHI:
    for (Value *V : cast<PHINode>(I).incoming_values())
      add(V);
    if (isMinMax(I))
      return Rule::Compute;
    if (const Value *Filter = minMaxFilter(cast<PHINode>(I));
        Filter && isDataType(Filter->getType())) {
      add(const_cast<Value *>(Filter)); // last: FunctionInstrumenter reads it there
      return Rule::FilteredPhi;
    }
    return Rule::Phi;
  case Instruction::Select:
    add(I.getOperand(1));
    add(I.getOperand(2));
    if (isMinMax(I))
      return Rule::Compute;
    return I.getOperand(0)->getType()->isVectorTy() ? Rule::Combine
                                                    : Rule::Select;
  case Instruction::Load:
  case Instruction::AtomicRMW:
  case Instruction::AtomicCmpXchg:
  case Instruction::VAArg:
  case Instruction::LandingPad:
  case Instruction::Alloca:
  case Instruction::GetElementPtr:
    return Rule::Leaf;
  case Instruction::Call:
  case Instruction::Invoke:
  case Instruction::CallBr: {
    const auto &CB = cast<CallBase>(I);
    if (isa<CallBrInst>(CB))
      return Rule::Leaf;
    switch (classifyCall(CB)) {
    case CallKind::Compute:
      for (Value *A : CB.args())
        add(A);
      return Rule::Compute;
    case CallKind::PassThrough:
      add(CB.getArgOperand(0));
      return Rule::Same;
    default:
      return Rule::Leaf;
    }
  }
  // Representation changes, not computations. ptrtoint has a pointer operand
  // (no label) so an address turned into an integer has label 0.
  case Instruction::BitCast:
  case Instruction::Trunc:
  case Instruction::ZExt:
  case Instruction::SExt:
  case Instruction::PtrToInt:
  case Instruction::IntToPtr:
  case Instruction::AddrSpaceCast:
  case Instruction::Freeze:
  case Instruction::ExtractElement: // the index is address-like: no label
  case Instruction::ExtractValue:
    add(I.getOperand(0));
    return Rule::Same;
  case Instruction::InsertElement: // operand 2 (the index) carries no label
  case Instruction::InsertValue:
  case Instruction::ShuffleVector:
    add(I.getOperand(0));
    add(I.getOperand(1));
    return Rule::Combine;
  default:
    // Binary/unary operators, icmp/fcmp, FP conversions, anything else with
    // data operands: one computation step.
    for (Value *V : I.operands())
      add(V);
    return Rule::Compute;
  }
}

} // namespace commanalyzer::pass
