// A step's offered tools as JSON text (offered_tools.hpp).
#include "toolwire/reference_server/offered_tools.hpp"

#include <utility>

#include "toolwire/protocol/safe_json.hpp"

namespace toolwire::reference_server {

offered_tools::builder::builder()
    : writer_(std::make_unique<protocol::openai_tool_writer>(text_)) {}

offered_tools::builder::~builder() = default;

void offered_tools::builder::add(std::string_view model_name, const protocol::tool_spec& tool) {
  if (text_.size() > 1) text_ += ',';
  writer_->write(model_name, tool);
  add_name(model_name);
}

void offered_tools::builder::add_text(std::string_view model_name, std::string_view tool_text) {
  if (text_.size() > 1) text_ += ',';
  text_ += tool_text;
  add_name(model_name);
}

void offered_tools::builder::add_name(std::string_view model_name) {
  names_ += model_name;
  name_ends_.push_back(names_.size());
}

offered_tools offered_tools::builder::build() && {
  offered_tools tools;
  if (name_ends_.empty()) return tools;  // one empty list for all: no allocation
  text_ += ']';
  tools.snapshot_ = std::make_shared<const snapshot>(
      snapshot{std::move(text_), std::move(names_), std::move(name_ends_)});
  return tools;
}

offered_tools offered_tools::from_json(const protocol::json& tools) {
  builder b;
  if (tools.is_array()) {
    for (const auto& tool : tools) {
      const protocol::json& function = protocol::member_at(tool, "function");
      b.add_text(protocol::string_at(function, "name"), protocol::safe_dump(tool));
    }
  }
  return std::move(b).build();
}

std::size_t offered_tools::count() const {
  return snapshot_ ? snapshot_->name_ends.size() : 0;
}

std::string_view offered_tools::json_text() const {
  return snapshot_ ? std::string_view(snapshot_->text) : std::string_view("[]");
}

protocol::json offered_tools::to_json() const {
  return protocol::json::parse(json_text());
}

std::vector<std::string> offered_tools::names() const {
  std::vector<std::string> names;
  if (!snapshot_) return names;
  names.reserve(snapshot_->name_ends.size());
  std::size_t begin = 0;
  for (const std::size_t end : snapshot_->name_ends) {
    names.push_back(snapshot_->names.substr(begin, end - begin));
    begin = end;
  }
  return names;
}

bool offered_tools::offers(std::string_view model_name) const {
  if (!snapshot_) return false;
  const std::string_view all = snapshot_->names;
  std::size_t begin = 0;
  for (const std::size_t end : snapshot_->name_ends) {
    if (all.substr(begin, end - begin) == model_name) return true;
    begin = end;
  }
  return false;
}

}  // namespace toolwire::reference_server
