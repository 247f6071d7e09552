//===- instrument/pass.cpp - CommAnalyzer value-flow instrumentation ------===//
//
// An LLVM 16 new-pass-manager plugin that instruments a sequential program
// for the runtime ABI in instrument/runtime_abi.h. It is a small relative of
// DataFlowSanitizer: every SSA value of a data type (integer, floating point,
// vectors and aggregates of those) gets a 64-bit shadow *label*, labels are
// propagated along data dependences only, and the runtime owns shadow memory
// (stores call hooks; a load reads the runtime's cached shadow pages inline
// and calls its hook only when that does not settle it, and a union makes
// its label-DAG node inline from a run of slots the runtime hands out:
// runtime_abi.h).
//
// What carries a label and what does not (DESIGN.md, "Semantics contract"):
//   - pointers are structure, not values: no labels, address arithmetic and
//     index values used only in addresses never reach the loaded data;
//   - branch conditions and loop control reach no stored value (we only
//     follow data), but the data that decides a conditional branch or switch
//     is *consumed* there: every process of an SPMD program takes the same
//     branch, so it must know that data. The pass reports it with __ca_use
//     (a global residual tested only in a loop condition is an Allreduce);
//   - a load yields a leaf label (inline or from __ca_load); a copy-like
//     instruction (bitcast/trunc/zext/sext/extract) keeps its operand's label;
//     every arithmetic/logic/compare/math step is a *computation*: the label is
//     the union of the operand labels with CA_COMPUTED_BIT set.
//
// Structure (per function, like DFSan):
//   1. "needed" analysis: starting from the sinks (stores, returns, argument
//      passing) walk the data operands backwards; only those values get shadow
//      code. Branch conditions are sinks too, but only for the part of their
//      slice that can carry a value instance ("leafy": loads, call results,
//      arguments and what is computed from them): loop counters and other
//      values derived from constants alone get no shadow code, and a branch
//      on them no hook.
//   2. one pass over the instructions in reverse post order (defs before
//      uses): hooks for loads/stores/memcpy/memset/calls/returns, and shadow
//      code for the needed values. Shadow phis are created empty and filled at
//      the end, when every incoming label exists.
//
// Pipeline position: registerOptimizerLastEPCallback, which LLVM 16 also runs
// in the -O0 pipeline (buildO0DefaultPipeline invokes it), so one
// registration covers -O0 and -O1..-O3. The pass is a module pass marked
// isRequired(), so `optnone` (which -O0 puts on every function) does not skip
// it. The estimate must not depend on the -O level (DESIGN.md, "Optimizer
// independence"), so at -O0 the plugin first lifts optnone and noinline and
// runs LLVM's -O1 inliner pipeline (LiftOptNonePass), and before
// instrumenting SROA promotes locals on every function (on optnone IR given
// to `opt`, EarlyCSE, InstCombine, SimplifyCFG and LoopRotate +
// LoopIdiomRecognize do what -O1 does first);
// locals still in memory are announced to the runtime (small ones are stack
// temporaries holding labels); a store of a computed register gives the
// uses it dominates the stored instance's label (StoreForwarding); loads
// from constant globals are constants. Above -O0, a few general passes
// (EarlyCSE, InstCombine, GVN) then clean up the label code, as clang does
// after MemorySanitizer; alias-scope metadata tells them that the runtime's
// memory and the program's never overlap.
//
// Where the parts are (instrument/pass/, one concept a file):
//   runtime_hooks     the runtime's ABI constants and hook declarations
//   value_rules       what carries a label, and each instruction's rule
//   label_demand      step 1: needed, leafy and decided values
//     loop_control    ... of which branches on loop control are not decisions
//   store_forwarding  the stored instance a later use of a register stands for
//   store_trees       stores of a tree of computations over loaded values,
//                     recorded without the tree's union nodes
//   function_instrumenter  step 2: the visit, and the labels of computations
//     labels          the labels of values while a function is instrumented
//     label_code      unions of labels, inline or through __ca_union
//     memory_hooks    loads, stores, atomics, memcpy/memset
//       shadow_load   the inline load path through the shadow cache
//       indirect_index  arrays indexed through other arrays
//     call_protocol   labels across calls and returns
//     locals          locals still in memory: stack temporaries or memory
//   loop_results      a loop's results as one value instance each
//   sites             the source sites of stores, decisions and loop results
//   global_arrays     global arrays registered like heap arrays
//
//===----------------------------------------------------------------------===//

#include "llvm/Analysis/GlobalsModRef.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/GVN.h"
#include "llvm/Transforms/Scalar/LoopIdiomRecognize.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopRotation.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/LCSSA.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "pass/array_sites.h"
#include "pass/function_instrumenter.h"
#include "pass/global_arrays.h"
#include "pass/loop_results.h"
#include "pass/runtime_hooks.h"
#include "pass/sites.h"
#include "pass/value_rules.h"

using namespace llvm;
using namespace commanalyzer::pass;

namespace {

// A module that calls __commanalyzer_region_begin (CA_REGION_BEGIN) tells
// the runtime before the program starts that a region will begin: what
// runs before it is set-up, which the runtime then does not record in
// full (Analyzer::expect_region).
bool announceRegion(Module &M) {
  Function *Begin = M.getFunction("__commanalyzer_region_begin");
  if (Begin == nullptr || none_of(Begin->users(), [](User *U) { return isa<CallBase>(U); }))
    return false;
  LLVMContext &C = M.getContext();
  FunctionCallee Hook =
      M.getOrInsertFunction("__ca_expect_region", FunctionType::get(Type::getVoidTy(C), false));
  Function *Ctor = Function::Create(FunctionType::get(Type::getVoidTy(C), false),
                                    GlobalValue::InternalLinkage, "__ca_announce_region", M);
  IRBuilder<> B(BasicBlock::Create(C, "", Ctor));
  B.CreateCall(Hook);
  B.CreateRetVoid();
  appendToGlobalCtors(M, Ctor, 102);
  return true;
}

struct CommAnalyzerPass : PassInfoMixin<CommAnalyzerPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    ArraySites Arrays;
    const bool Announced = announceRegion(M);
    const bool Registered = registerGlobalArrays(M, Arrays) || Announced;
    SmallVector<Function *, 32> Work;
    for (Function &F : M)
      if (!F.isDeclaration() && !isRuntimeName(F.getName()) &&
          !F.hasFnAttribute(Attribute::Naked))
        Work.push_back(&F);
    if (Work.empty()) {
      Arrays.emit(M);
      return Registered ? PreservedAnalyses::none() : PreservedAnalyses::all();
    }
    // Locals are registers at every -O level (DESIGN.md, "Optimizer
    // independence": stack temporaries are private to their process). At
    // -O0 they are still allocas, and every function is optnone, which
    // makes the pass managers skip SROA; run it here directly. Above -O0
    // it finds (almost) nothing left to do.
    FunctionAnalysisManager &FAM =
        MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
    // At -O0 (optnone, lifted meanwhile), EarlyCSE, InstCombine,
    // SimplifyCFG and LoopIdiomRecognize then do what every higher level
    // does first: `1.0 * v` is a copy of v, not a computation; `if (d > m)
    // m = d;` a select (data), not a branch (a decision); a zeroing loop a
    // memset, which numbers its values array by array.
    for (Function *F : Work) {
      const bool OptNone = F->hasOptNone();
      FunctionPassManager FPM;
      FPM.addPass(SROAPass(SROAOptions::PreserveCFG));
      if (OptNone) {
        F->removeFnAttr(Attribute::OptimizeNone);
        FPM.addPass(EarlyCSEPass(/*UseMemorySSA=*/false));
        FPM.addPass(InstCombinePass());
        FPM.addPass(SimplifyCFGPass());
        LoopPassManager LPM;
        LPM.addPass(LoopRotatePass());
        LPM.addPass(LoopIdiomRecognizePass());
        FPM.addPass(createFunctionToLoopPassAdaptor(std::move(LPM)));
        FPM.addPass(EarlyCSEPass(/*UseMemorySSA=*/false)); // the guard's copies
      }
      FPM.addPass(LCSSAPass()); // last: a loop's results leave it through phis (loopResults)
      PreservedAnalyses PA = FPM.run(*F, FAM);
      FAM.invalidate(*F, PA);
      if (OptNone)
        F->addFnAttr(Attribute::OptimizeNone);
    }
    Runtime RT(M);
    SiteTable Sites;
    for (Function *F : Work) {
      SmallPtrSet<PHINode *, 16> LoopResults = loopResults(*F, FAM);
      Sites.locate(*F, FAM.getResult<LoopAnalysis>(*F), LoopResults);
      FunctionInstrumenter(*F, RT, LoopResults, Sites).run();
      Arrays.instrument(*F);
    }
    Sites.emit(M);
    Arrays.emit(M);
    // Instrumented code reads and writes the protocol TLS variables, so a
    // function (or declaration that may be instrumented elsewhere) can no
    // longer be memory(none)/readonly; code generation must not move the
    // argument-label stores across the call. Like DFSan, drop the memory
    // effects from functions here and from call sites in
    // CallProtocol::visitCall.
    for (Function &F : M) {
      if (F.isIntrinsic() || isRuntimeName(F.getName()))
        continue;
      if (!F.isDeclaration() || !isMathLibName(F.getName()))
        F.removeFnAttr(Attribute::Memory);
    }
    // GlobalsAA counts as stateless: only abandoning it drops its stale
    // "this function writes no global" facts, which the cleanup passes
    // would otherwise apply to the runtime's TLS slots.
    PreservedAnalyses PA = PreservedAnalyses::none();
    PA.abandon<GlobalsAA>();
    return PA;
  }
  // Run even on optnone functions (every function at -O0).
  static bool isRequired() { return true; }
};

// -O0 puts optnone and noinline on every function. Lifting both lets the
// -O1 inliner and simplification run before instrumenting, so that the
// program is analysed as -O1 compiles it: helpers inlined into their loops
// (a min over cells, an index read through `node(e, k)`), not calls. (A
// noinline the user wrote cannot be told apart at -O0.)
struct LiftOptNonePass : PassInfoMixin<LiftOptNonePass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    bool Changed = false;
    for (Function &F : M) {
      if (F.isDeclaration() || !F.hasOptNone())
        continue;
      F.removeFnAttr(Attribute::OptimizeNone);
      F.removeFnAttr(Attribute::NoInline);
      Changed = true;
    }
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "CommAnalyzerPass", "0.1",
          [](PassBuilder &PB) {
            PB.registerOptimizerLastEPCallback(
                [&PB](ModulePassManager &MPM, OptimizationLevel Level) {
                  if (Level == OptimizationLevel::O0) {
                    // The estimate must not depend on the -O level: -O0
                    // is instrumented as -O1 would compile it.
                    MPM.addPass(LiftOptNonePass());
                    MPM.addPass(PB.buildInlinerPipeline(
                        OptimizationLevel::O1, ThinOrFullLTOPhase::None));
                  }
                  MPM.addPass(CommAnalyzerPass());
                  if (Level == OptimizationLevel::O0)
                    return;
                  // The label code repeats address and run-state
                  // computations; general passes clean up after it.
                  FunctionPassManager FPM;
                  FPM.addPass(EarlyCSEPass(/*UseMemorySSA=*/true));
                  FPM.addPass(InstCombinePass());
                  FPM.addPass(GVNPass());
                  FPM.addPass(InstCombinePass());
                  MPM.addPass(createModuleToFunctionPassAdaptor(std::move(FPM)));
                });
            // opt -load-pass-plugin=... -passes=commanalyzer-instrument
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "commanalyzer-instrument")
                    return false;
                  MPM.addPass(CommAnalyzerPass());
                  return true;
                });
          }};
}
