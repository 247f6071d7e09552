// Labels across calls (runtime_abi.h, the call protocol): a caller writes
// its arguments' labels into __ca_arg_labels and names the callee in
// __ca_arg_callee; the callee takes them only if it is the one named (a
// call from uninstrumented code leaves stale slots); a return writes
// __ca_ret_label and __ca_ret_valid, which the caller clears first. A byval
// argument's slot carries the caller's object's address, and the callee
// replays the copy the call lowering made.
//
//   CallProtocol Calls(F, RT, Demand, Labels);
//   Calls.emitPrologue();       // once, in the entry block
//   Calls.visitCall(CB);        // every call that may reach instrumented code
//   Calls.visitReturn(RI);
#ifndef COMMANALYZER_INSTRUMENT_PASS_CALL_PROTOCOL_H_
#define COMMANALYZER_INSTRUMENT_PASS_CALL_PROTOCOL_H_

#include "label_demand.h"
#include "labels.h"
#include "runtime_hooks.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

namespace commanalyzer::pass {

class CallProtocol {
public:
  CallProtocol(llvm::Function &F, const Runtime &RT, const LabelDemand &Demand,
               LabelTable &Labels)
      : F(F), RT(RT), Demand(Demand), Labels(Labels) {}

  // The arguments' labels, from the caller if it addressed them to F.
  void emitPrologue();
  // A call that may reach instrumented code (classifyCall: Protocol).
  void visitCall(llvm::CallBase &CB);
  void visitReturn(llvm::ReturnInst &RI);

private:
  llvm::Function &F;
  const Runtime &RT;
  const LabelDemand &Demand;
  LabelTable &Labels;
};

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_CALL_PROTOCOL_H_
