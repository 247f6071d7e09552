// What carries a label, and how an instruction's label is formed from its
// operands' (DESIGN.md, "Semantics contract"): the rules every part of the
// pass asks, so that the analyses and the code they plan cannot disagree.
//
//   SmallVector<Value *, 4> Ops;
//   if (ruleFor(I, Ops) == Rule::Compute) ...  // Ops: the labels' sources
#ifndef COMMANALYZER_INSTRUMENT_PASS_VALUE_RULES_H_
#define COMMANALYZER_INSTRUMENT_PASS_VALUE_RULES_H_

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Type.h"

namespace commanalyzer::pass {

// Data = something a program computes with: integers, floating point, and
// aggregates with at least one such field. Pointers are structure and carry
// no label; an aggregate that mixes both (a {ptr, double} return) has one
// label for its data fields, and its pointer fields are cleared in memory.
bool isDataType(llvm::Type *T);
bool hasPointer(llvm::Type *T);

// The runtime, its hooks and the annotation entry points are never
// instrumented, and calls to them are left alone.
bool isRuntimeName(llvm::StringRef N);

// libm (and the integer abs family): treated as one computation step on
// their data arguments rather than as opaque external calls. Only functions
// whose arguments are all by value; frexp/modf-style functions that write
// through a pointer are left to the generic external-call rule.
bool isMathLibName(llvm::StringRef N);

// How a call is handled.
enum class CallKind {
  MemCpy,      // llvm.memcpy/memmove or memcpy/memmove: __ca_memcpy
  MemSet,      // llvm.memset or memset: __ca_memset
  Compute,     // intrinsic or libm: union of the data arguments
  PassThrough, // llvm.expect / llvm.ssa.copy: label of argument 0
  Protocol,    // possibly instrumented callee: __ca_arg_*/__ca_ret_*
  Opaque,      // inline asm, runtime hooks: result is "uninstrumented data"
};

CallKind classifyCall(const llvm::CallBase &CB);

// How the label of an instruction's result is formed from its operands.
enum class Rule {
  Leaf,    // produced by a hook (load, call protocol) or opaque
  Same,    // copy-like: the label of the single flow operand (or 0)
  Compute, // union of the flow operands, marked computed
  Combine, // aggregate/vector assembly: union, but no computation mark
  Select,  // select on the original condition
  Phi,     // phi of labels
  FilteredPhi, // phi of labels, computed with its filter's (the last operand)
};

// `m = c < m ? c : m` (a select whose condition compares exactly its two
// operands): its condition's label is the union of theirs, which its own
// label is already (a minimum or maximum, Rule::Compute), so the label a
// decision on it needs is that one.
bool isMinMaxByItsOwnComparison(const llvm::Instruction &I);

// The rule for I and the operands whose labels flow into its result. Shared
// by the "needed" analysis and by code generation so they cannot disagree.
Rule ruleFor(const llvm::Instruction &I, llvm::SmallVectorImpl<llvm::Value *> &Ops);

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_VALUE_RULES_H_
