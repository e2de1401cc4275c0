#include "compression/lz4_contexts.h"

#include "absl/strings/str_cat.h"

namespace rockpool {

template <>
const char* const Lz4StreamPolicy::kName = "LZ4_stream_t";
template <>
size_t Lz4StreamPolicy::StateSize() const {
  const int size = lib_->LZ4_sizeofState();
  return size > 0 ? static_cast<size_t>(size) : 0;
}
template <>
LZ4_stream_t* Lz4StreamPolicy::Init(void* memory, size_t size) const {
  return lib_->LZ4_initStream(memory, size);
}

template <>
const char* const Lz4HcStreamPolicy::kName = "LZ4_streamHC_t";
template <>
size_t Lz4HcStreamPolicy::StateSize() const {
  const int size = lib_->LZ4_sizeofStateHC();
  return size > 0 ? static_cast<size_t>(size) : 0;
}
template <>
LZ4_streamHC_t* Lz4HcStreamPolicy::Init(void* memory, size_t size) const {
  return lib_->LZ4_initStreamHC(memory, size);
}

template <typename State>
absl::StatusOr<std::unique_ptr<Lz4Context<State>>> Lz4Policy<State>::Create(
    const Key&, AllocationStats* stats) {
  const size_t size = StateSize();
  if (size == 0)
    return absl::InternalError(absl::StrCat("lz4: the copy reports no ", kName, " size"));
  auto context = std::unique_ptr<Context>(new (std::nothrow) Context(stats));
  if (context == nullptr) return absl::ResourceExhaustedError("lz4: out of memory");
  context->memory_ = context->allocator_.Allocate(size);
  if (context->memory_ == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat("lz4: cannot allocate a ", kName));
  }
  context->size_ = size;
  context->state_ = Init(context->memory_, size);
  if (context->state_ == nullptr) {
    return absl::InternalError(absl::StrCat("lz4: ", kName, " init refused ", size, " bytes"));
  }
  return context;
}

template <typename State>
absl::Status Lz4Policy<State>::Reset(Context& context) {
  if (Init(context.memory_, context.size_) == nullptr) {
    return absl::InternalError(absl::StrCat("lz4: ", kName, " re-init failed"));
  }
  return absl::OkStatus();
}

// Member by member, not the whole class: the default constructor names
// DirectLz4(), which only binaries with :direct_codec_library link.
#define ROCKPOOL_INSTANTIATE_LZ4_POLICY(State)                                          \
  template absl::StatusOr<std::unique_ptr<Lz4Context<State>>> Lz4Policy<State>::Create( \
      const Lz4Key&, AllocationStats*);                                                 \
  template absl::Status Lz4Policy<State>::Reset(Lz4Context<State>&);
ROCKPOOL_INSTANTIATE_LZ4_POLICY(LZ4_stream_t)
ROCKPOOL_INSTANTIATE_LZ4_POLICY(LZ4_streamHC_t)
#undef ROCKPOOL_INSTANTIATE_LZ4_POLICY

}  // namespace rockpool
