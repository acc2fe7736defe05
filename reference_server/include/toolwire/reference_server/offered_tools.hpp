// The tools one model step offers (TOOLS-6: one snapshot, taken all at once), kept as the
// OpenAI-compatible JSON text the model endpoint reads (MODEL-1).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/protocol/codec.hpp"
#include "toolwire/protocol/types.hpp"

namespace toolwire::reference_server {

//! Why text and not a JSON value: a step offers every live client's tools, and with 10,000
//! clients a JSON tree of them (about 1 MB) was built, serialized and freed at every step,
//! tens of milliseconds of the server's only thread per turn (docs/benchmarks.md). Copies
//! share one immutable snapshot, so a step, its turn and the undo journal hold it for the
//! price of a pointer.
class offered_tools {
 public:
  class builder {
   public:
    builder();
    ~builder();
    builder(const builder&) = delete;
    builder& operator=(const builder&) = delete;

    //! Offers `tool` under `model_name` (CALL-2: the name the model calls it by).
    void add(std::string_view model_name, const protocol::tool_spec& tool);
    offered_tools build() &&;

   private:
    friend class offered_tools;
    void add_text(std::string_view model_name, std::string_view tool_text);
    void add_name(std::string_view model_name);
    std::string text_ = "[";
    std::unique_ptr<protocol::openai_tool_writer> writer_;  // writes onto text_
    std::string names_;                   // the model-side names, one after another
    std::vector<std::size_t> name_ends_;  // where each name in names_ ends
  };

  //! Read back from `to_json()`'s shape: each item's `function.name` is its name.
  static offered_tools from_json(const protocol::json& tools);

  bool empty() const { return count() == 0; }
  std::size_t count() const;
  //! The tools as a JSON array (`[]` when none), as `json::dump` writes it.
  std::string_view json_text() const;
  protocol::json to_json() const;
  //! The model-side names, in the order offered.
  std::vector<std::string> names() const;
  bool offers(std::string_view model_name) const;

 private:
  struct snapshot {
    std::string text;
    std::string names;
    std::vector<std::size_t> name_ends;
  };
  std::shared_ptr<const snapshot> snapshot_;
};

}  // namespace toolwire::reference_server
