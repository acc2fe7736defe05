// The model-side variations: a model_backend decorator that changes the requests the
// server sends the model, within MODEL-1..3, and passes the answers back unchanged.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "toolwire/reference_server/variations/variations.hpp"
#include "toolwire/reference_server/web/model_backend.hpp"

namespace toolwire::reference_server::variations::detail {

class varied_backend final : public web::model_backend {
 public:
  varied_backend(variation_set set, std::unique_ptr<web::model_backend> inner)
      : set_(std::move(set)), inner_(std::move(inner)) {}

  void start(const reference_server::model_step_request& request,
             std::function<void(reference_server::model_reply)> done) override;
  void close() override { inner_->close(); }

 private:
  bool has(variation v) const { return set_.contains(v); }
  //! The request body as `set_` varies it; `history` is the session's earlier turns;
  //! `task`: the request is a task's.
  json vary(json body, const json& history, bool task) const;

  variation_set set_;
  std::unique_ptr<web::model_backend> inner_;
  //! model_history: per session, the messages of its completed turns, in order. Shared
  //! with the answers in flight, which add a turn when it completes.
  std::shared_ptr<std::map<std::string, json>> histories_ =
      std::make_shared<std::map<std::string, json>>();
};

}  // namespace toolwire::reference_server::variations::detail
