// Locals (locals.h): sized statically where they can be, so a temporary is
// known at compile time; the runtime keeps no list of them.
#include "locals.h"

#include <optional>

#include "llvm/IR/IRBuilder.h"

using namespace llvm;

namespace commanalyzer::pass {

uint64_t temporarySize(const AllocaInst &AI, const DataLayout &DL) {
  std::optional<TypeSize> Size = AI.getAllocationSize(DL);
  if (!Size || Size->isScalable() || Size->getFixedValue() == 0 ||
      Size->getFixedValue() > kMaxStackTemporary)
    return 0;
  return Size->getFixedValue();
}

void announceLocal(AllocaInst &AI, const Runtime &RT, const DataLayout &DL) {
  if (AI.use_empty() || !instrumentedAddress(&AI))
    return;
  IRBuilder<> B(AI.getNextNode());
  if (uint64_t Size = temporarySize(AI, DL)) {
    B.CreateCall(RT.StackTemp, {&AI, B.getInt64(Size)});
    return;
  }
  Value *Size = B.getInt64(DL.getTypeAllocSize(AI.getAllocatedType()));
  if (AI.isArrayAllocation())
    Size = B.CreateMul(Size, B.CreateZExtOrTrunc(AI.getArraySize(), RT.I64));
  B.CreateCall(RT.StackMem, {&AI, Size});
}

} // namespace commanalyzer::pass
