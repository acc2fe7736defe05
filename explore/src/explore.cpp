// The search: programs generated, run on the target and the oracle, judged, shrunk,
// triaged, and the written program checked.
#include "toolwire/explore/explore.hpp"

#include <fcntl.h>
#include <rapidcheck.h>
#include <rapidcheck/detail/Configuration.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <semaphore>
#include <set>
#include <thread>
#include <utility>

#include "generate.hpp"
#include "oracle_instants.hpp"
#include "toolwire/actors/invariants.hpp"
#include "toolwire/actors/judge.hpp"
#include "toolwire/protocol/events.hpp"
#include "toolwire/protocol/routes.hpp"
#include "toolwire/protocol/safe_json.hpp"
#include "toolwire/reference_server/core.hpp"

namespace toolwire::explore {

using detail::oracle_instants;
using detail::oracle_instants_of;
using scenarios::scenario;
using scenarios::scripted_step;

namespace {

using clock_type = std::chrono::steady_clock;
using protocol::json;

actors::run_result run_in_process(scenario program, std::uint64_t seed,
                                  const reference_server::fault_set& faults,
                                  bool model_when_idle = false, bool note_deadlines = false,
                                  std::vector<std::string> registration_order = {}) {
  program.faults = faults;
  actors::run_options options;
  options.seed = seed;
  options.registration_order = std::move(registration_order);
  options.model_when_idle = model_when_idle;
  options.note_deadlines = note_deadlines;
  options.source = "explore";
  auto result = actors::simulate(program, options);
  return result ? std::move(*result) : actors::run_result{};
}

//! Slots for the reference's runs when programs run at once: at most one per core at a
//! time. Why: a program judged waits out real time on its target while the next ones
//! prepare; dozens of workers running the reference at once (each program runs it a few
//! times before and after its run) kept the running programs' threads off the cores for
//! hundreds of milliseconds, and what the target sent was read that late (explore, 128
//! programs at once on a 2-core machine: 16 divergences of events read 200-500 ms late,
//! each gone when its program ran again; none with the slots).
class reference_slots {
 public:
  explicit reference_slots(std::ptrdiff_t slots) : free_(slots) {}
  //! Holds a slot until released or destroyed.
  class held {
   public:
    explicit held(reference_slots* slots) : slots_(slots) {
      if (slots_) slots_->free_.acquire();
    }
    held(const held&) = delete;
    held& operator=(const held&) = delete;
    ~held() { release(); }
    void release() {
      if (slots_) slots_->free_.release();
      slots_ = nullptr;
    }

   private:
    reference_slots* slots_;
  };

 private:
  std::counting_semaphore<1024> free_;
};

//! Where a search's programs run: its target, or the in-process core with faults.
class runner {
 public:
  runner(std::unique_ptr<program_runner> target, reference_server::fault_set faults,
         reference_slots* slots = nullptr)
      : target_(std::move(target)), faults_(std::move(faults)), slots_(slots) {}
  //! A slot for running the reference (none needed when programs run one at a time).
  reference_slots* slots() const { return slots_; }

  protocol::outcome<actors::run_result> run(const scenario& program, std::uint64_t seed,
                                            std::vector<time_ms> clock_stops) {
    if (target_) return target_->run(program, seed, std::move(clock_stops));
    return run_in_process(program, seed, faults_);
  }
  //! The in-process core without faults is the oracle itself: same seed, same trace.
  bool is_oracle() const { return !target_ && faults_.empty(); }
  bool over_http() const { return target_ != nullptr; }

 private:
  std::unique_ptr<program_runner> target_;
  reference_server::fault_set faults_;
  reference_slots* slots_;
};

struct judgement {
  scenario drawn;    // as drawn
  scenario program;  // as judged (over HTTP: lasting until the reference settled)
  std::vector<std::string> problems;
  std::optional<actors::divergence> divergence;
  std::vector<std::string> spec_ids;
  std::uint64_t requests = 0;
  std::optional<protocol::api_error> error;  // the target could not be used
  //! The first request the target did not answer (actors::first_unanswered): the run is
  //! not compared, since what it showed after that says nothing about SPEC.
  std::string unanswered;
  //! On a real clock the program still raced after most_moves_clear_of_races moves clear
  //! of races: it was not run, and says nothing either way.
  bool still_racing = false;
  //! Not run: as judged it would have ended past the search's time budget (judge_on's
  //! `may_start`).
  bool past_budget = false;
  //! Which life-cycle points the reference reached running the program (coverage).
  std::vector<bool> reached;
  actors::trace target_trace, oracle_trace;  // what was compared
  bool failed() const { return !problems.empty(); }
};

//! The rules a judgement cites, each once, in order.
void sort_unique(std::vector<std::string>& ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

//! Lock-step: where the oracle showed something, the target's clock stops too, so that
//! a target keeping time shows it at the same instant (see run_options::clock_stops).
//! Not on a real clock, where time passes by itself.
std::vector<time_ms> stops_of(const actors::trace& oracle) {
  std::vector<time_ms> stops;
  for (const auto& r : oracle.records()) {
    if (r.kind == "event" || r.kind == "model_step") stops.push_back(r.at);
  }
  std::sort(stops.begin(), stops.end());
  stops.erase(std::unique(stops.begin(), stops.end()), stops.end());
  return stops;
}

//! `stops` with the instants of stops_of(`run`) it lacks added; empty when it lacks none.
std::vector<time_ms> stops_missed(const actors::trace& run, const std::vector<time_ms>& stops) {
  const auto wanted = stops_of(run);
  std::vector<time_ms> merged;
  std::set_union(stops.begin(), stops.end(), wanted.begin(), wanted.end(),
                 std::back_inserter(merged));
  if (merged.size() == stops.size()) return {};
  return merged;
}

//! How many other seeds of the oracle a divergence is checked against.
constexpr std::uint64_t other_interleavings = 16;
//! Interleavings tried that follow the target's order of registrations (below).
constexpr std::uint64_t guided_tries = 4;

//! How often the task caller of a task's model step `o` polls; 0 for other observations.
time_ms poll_every_of(const actors::observation& o, const scenario& program) {
  if (o.task_caller.empty()) return 0;
  const auto caller =
      std::find_if(program.task_callers.begin(), program.task_callers.end(),
                   [&](const scenarios::task_caller_spec& c) { return c.actor == o.task_caller; });
  return caller == program.task_callers.end() ? 0 : caller->poll_every;
}

//! What a run showed until its end. Why cut: in-process, a run goes on until every
//! deadline has passed (CALL-5), while a remote target is not waited for that long.
//! On a real clock a task caller learns that its task waits for it at its next poll, so a
//! task that was interrupted a little later than in the oracle (within the tolerance) is
//! answered a whole poll later, and every later step of that task with it: the n-th model
//! step of a caller's task may come up to n-1 polls late through the harness's schedule,
//! not the target (explore, seed 9000, program 195: polls every 250 ms met each 1.5 s hold
//! at its very instant, and the third step came 594 ms late).
void allow_poll_lag(std::vector<actors::observation>& observed, const scenario& program) {
  for (auto& o : observed)
    o.slack_ms = std::max<time_ms>(0, o.nth - 1) * poll_every_of(o, program);
}

std::vector<actors::observation> observed_in_run(const actors::trace& run, time_ms end,
                                                 const scenario* real_clock_program = nullptr) {
  auto observed =
      actors::observe(run, real_clock_program != nullptr ? actors::processing_polls::passed_over
                                                         : actors::processing_polls::compared);
  std::erase_if(observed, [&](const actors::observation& o) { return o.at > end; });
  if (real_clock_program != nullptr) allow_poll_lag(observed, *real_clock_program);
  return observed;
}

//! Where the target's run is a reference's run: what each showed until `end`. On a real
//! clock the target may show what the reference showed by then up to the tolerance later
//! (its run lasts that much longer, run_options::owed_wait_ms, and a task's poll lag more),
//! so `target` reaches beyond `end`; what it shows after `end` counts only as a late showing of
//! something the reference showed by `end`, since the rest lies outside both windows.
std::optional<actors::divergence> divergence_from(const actors::trace& reference,
                                                  std::vector<actors::observation> target,
                                                  time_ms end, time_ms tolerance_ms,
                                                  const scenario* real_clock_program) {
  const auto expected = observed_in_run(reference, end, real_clock_program);
  std::set<std::string> subjects;
  for (const auto& o : expected)
    subjects.insert(o.subject);
  std::erase_if(target, [&](const actors::observation& o) {
    return o.at > end && !subjects.contains(o.subject);
  });
  return actors::first_divergence(expected, target, tolerance_ms,
                                  real_clock_program != nullptr
                                      ? actors::lateness::inherited
                                      : actors::lateness::each_on_its_own);
}

//! When a task caller last saw its task's status change (a poll whose status differs from
//! the one before). Why: a task failed by its interrupt deadline (TASK-7) shows no event,
//! only the next poll's status, and a run ending before that poll never compared it (with
//! SPEC's 600 s interrupt timeout the program ended first, and explore could not find
//! `interrupt_never_times_out`).
time_ms last_task_change(const actors::trace& run) {
  time_ms last = 0;
  std::map<std::string, std::string> status_of;  // task path -> status last polled
  for (const auto& r : run.records()) {
    if (r.kind != "response" || r.data.value("status", 0) != 200) continue;
    const std::string path = protocol::string_at(r.data, "path");
    const auto route = protocol::match_route(protocol::string_at(r.data, "method"), path);
    if (!route || route->route->id != protocol::route_id::get_task) continue;
    const std::string status = protocol::string_at(protocol::member_at(r.data, "body"), "status");
    auto& before = status_of[path];
    if (status != before) last = std::max(last, r.at);
    before = status;
  }
  return last;
}

//! The reference's run of `program` in one of the two orders the target is compared with
//! first: the harness's own (the model answering once the actors are idle) with
//! `model_when_idle`, else the seed's. With the deadlines the target armed noted
//! (actors::run_result::deadlines), which the races on a real clock read; noting them
//! changes nothing else.
actors::run_result reference_order(const scenario& program, std::uint64_t seed,
                                   bool model_when_idle) {
  return run_in_process(program, seed, {}, model_when_idle, /*note_deadlines=*/true);
}

//! The program lasting until the reference has settled everything it started. Why: a
//! run in-process goes on after its duration until every deadline has passed (CALL-5),
//! while a remote target is not waited for beyond the duration, and a real-clock run ends
//! just after its last step; a call still open there would read as one never settled.
//! On a real clock a last step (a check, once written out) keeps the run going that long.
//! The program made to last (lasting_until_settled) and, when that did not change it, the
//! reference's runs of it that judge_on would otherwise run again (each run of the
//! reference was a fifth of a program's CPU time over HTTP): in the harness's own order
//! (model_when_idle), and on a real clock in the seed's too.
struct lasting_program {
  scenario program;
  std::optional<actors::run_result> seed_order, harness_order;
};

//! How much later than the reference a target on a real clock may show a task's last
//! answer: a caller sees each round of its task up to a poll late and answers that much
//! later (allow_poll_lag), so the answer its n-th model step leads to may come n polls
//! late. The most any caller's task needs in `run`. Why: a run ending the tolerance after
//! the reference's last showing cut that answer off (explore, seed 4600, program 2: the
//! third round's `interrupted` came two polls after the reference's, past the run's end).
time_ms task_poll_lag(const actors::trace& run, const scenario& program) {
  time_ms lag = 0;
  for (const auto& o : actors::observe(run))
    lag = std::max(lag, o.nth * poll_every_of(o, program));
  return lag;
}

//! `program` lasting past every client that joins on its own. Why: such a client joining
//! after the duration joins in the reference, which runs on until every deadline has
//! passed, but the reference's run may end between the client's request and the response
//! that names it; then the reference knows it only by the name it was given, the target
//! (whose run lasts until after the join) by its actor (explore, 100/300/400 ms timeouts,
//! seed 82, program 517: a join at 1,981 ms, the reference's end at 1,981 ms, "the target
//! showed nothing" for "client named web_2 #1"). And before the program moves clear of
//! races: a join the reference's runs never reached races nothing there (seed 85, program
//! 1010: a join 16 ms after a held answer was applied, found once the program lasted).
scenario lasting_past_joins(scenario program) {
  for (const auto& client : program.clients) {
    if (client.auto_join) program.duration = std::max(program.duration, client.join_at + 1);
  }
  return program;
}

//! `runs`: on a real clock, the reference's runs of `program` in the seed's order and the
//! harness's (reference_order), which clear_of_races made. On a virtual clock none: the
//! harness's order alone is run here, the oracle there (judge_on).
lasting_program lasting_until_settled(scenario program, std::uint64_t seed,
                                      const program_shape& shape,
                                      std::vector<actors::run_result> runs = {}) {
  if (runs.empty()) runs.push_back(reference_order(program, seed, /*model_when_idle=*/true));
  time_ms last = 0;
  time_ms poll_lag = 0;  // on a real clock, task_poll_lag
  for (const auto& run : runs) {
    for (const auto& r : run.trace.records()) {
      if (r.kind == "event" || r.kind == "model_step") last = std::max(last, r.at);
    }
    last = std::max(last, last_task_change(run.trace));
    if (shape.real_clock) poll_lag = std::max(poll_lag, task_poll_lag(run.trace, program));
  }
  const time_ms duration = program.duration;
  program.duration = std::max(program.duration, last + 1);
  const bool step_added =
      shape.real_clock && last + poll_lag + 1 > scenarios::end_of_steps(program);
  if (step_added) {
    const time_ms at = last + poll_lag + shape.tolerance_ms + 1;
    program.steps.push_back({at, "director", "", json::object(), {}, ""});
    program.duration = std::max(program.duration, at + 1);
  }
  if (step_added || program.duration != duration) return {std::move(program), {}, {}};
  if (runs.size() == 1) return {std::move(program), {}, std::move(runs[0])};
  return {std::move(program), std::move(runs[0]), std::move(runs[1])};
}

// Races on a real clock. A step within the tolerance of what it races (a deadline, the
// dispatch of the call it acts on, that call's client settling it on its own, its client's
// registration) meets it in either order: the target's timers may fire up to the tolerance
// late, and its requests arrive late. That is a coin toss, not a behaviour: a ping at a
// TTL's last instant keeps the client on one run and finds it expired on the next. Each
// kind of race below reads what an oracle run showed (oracle_instants) and says what it
// races; clear_of_races moves the program clear of the first one found, runs the oracle
// again, and so on until none races.

//! What a race of a step reads: the step, one oracle run's instants, and how near counts
//! (`margin`). Returns the instant the step races, if it races one of this kind.
using step_race = std::optional<time_ms> (*)(const scripted_step& step, const oracle_instants& in,
                                             time_ms margin);

//! What the step needs appears at its instant or within `margin` after it: on a real clock
//! the step waits a while for what a slow target owes, and would find there what the oracle
//! did not have yet (at one instant the oracle may run the step first; found by explore,
//! seed 6000: an ack at the instant of the message whose answer dispatched its call).
bool appears_after(time_ms when, time_ms at, time_ms margin) {
  return when >= at && when < at + margin;
}

//! The first of `instants` within `margin` of `at`, either side.
std::optional<time_ms> first_near(const std::vector<time_ms>& instants, time_ms at,
                                  time_ms margin) {
  for (const time_ms when : instants) {
    if (std::abs(when - at) < margin) return when;
  }
  return std::nullopt;
}

//! `program`'s steps in time order, ties in the order they were listed (as scenario files
//! keep them), after a move changed their times.
void steps_in_time_order(scenario& program) {
  std::stable_sort(program.steps.begin(), program.steps.end(),
                   [](const auto& a, const auto& b) { return a.at < b.at; });
}

//! The first of `armed` (deadlines, turns, held answers) armed before `when` and due within
//! `margin` of it, either side: which of the two goes first is the coin toss. One armed at
//! or after `when` (by the step, or a later one) moves with it. Not yet due (-1): none.
std::optional<time_ms> armed_racing(const std::vector<actors::armed_deadline>& armed, time_ms when,
                                    time_ms margin) {
  for (const auto& a : armed) {
    if (a.armed_at < when && a.due >= 0 && std::abs(a.due - when) < margin) return a.due;
  }
  return std::nullopt;
}

//! The n-th dispatch (from 0) a step on call `call` (from 1) acts on, if it has one.
std::optional<std::size_t> nth_dispatch(const scripted_step& step, const oracle_instants& in) {
  const json& call = protocol::member_at(step.args, "call");
  if (!call.is_number_integer()) return std::nullopt;
  const auto n = call.get<std::int64_t>();
  if (n < 1 || static_cast<std::size_t>(n) > in.dispatches.size()) return std::nullopt;
  return static_cast<std::size_t>(n - 1);
}

//! A deadline armed before the step, within `margin` either side.
std::optional<time_ms> deadline_armed_before(const scripted_step& step, const oracle_instants& in,
                                             time_ms margin) {
  return armed_racing(in.deadlines, step.at, margin);
}

//! A deadline the step arms (one first armed at its instant: a message dispatching a call
//! arms the call's ack deadline) within `margin` of another deadline, either side, both
//! passing (their timers fired; a disarmed deadline races nothing); the instant returned
//! moves the step so that its deadline falls `margin` after the other. Why: on a real clock
//! either timer may fire up to the tolerance late, so which fires first is a coin toss
//! (explore, every variation, seed 5300, program 324: an ack timeout 50 ms before the
//! client's TTL expiry; the reference's model then called the client's other tool and
//! dispatched it, while the slow target's model answered after the expiry and the tool was
//! gone, in one run of four).
std::optional<time_ms> its_deadline_near_another(const scripted_step& step,
                                                 const oracle_instants& in, time_ms margin) {
  const auto armed_before = [&](time_ms due, time_ms at) {
    const auto first = in.first_armed.find(due);
    return first != in.first_armed.end() && first->second < at;
  };
  for (const auto& mine : in.deadlines) {
    if (mine.armed_at != step.at || !in.timers_fired.contains(mine.due) ||
        armed_before(mine.due, mine.armed_at)) {
      continue;
    }
    for (auto other = in.timers_fired.upper_bound(mine.due - margin);
         other != in.timers_fired.end() && *other < mine.due + margin; ++other) {
      if (*other != mine.due && armed_before(*other, mine.due))
        return step.at + (*other - mine.due);
    }
  }
  return std::nullopt;
}

//! The dispatch of the call the step acts on, appearing after it.
std::optional<time_ms> dispatch_of_its_call(const scripted_step& step, const oracle_instants& in,
                                            time_ms margin) {
  const auto nth = nth_dispatch(step, in);
  if (nth && appears_after(in.dispatches[*nth], step.at, margin)) return in.dispatches[*nth];
  return std::nullopt;
}

//! The call's client settling it on its own within `margin` either side (looked for after
//! dispatch_of_its_call, which a dispatch appearing after the step races first): it answers a delay
//! after it sees the dispatch, which a slow target sends late, so which of the two settles
//! the call is a coin toss (explore, seed 9000, program 40: a call dispatched 96 ms late had
//! its client's result go after a scripted error_result on it, where the oracle had it
//! before, and the model got is_error true).
std::optional<time_ms> its_call_settled_by_its_client(const scripted_step& step,
                                                      const oracle_instants& in, time_ms margin) {
  const auto nth = nth_dispatch(step, in);
  if (!nth) return std::nullopt;
  const auto settled = in.own_settlements.find(in.dispatched_calls[*nth]);
  if (settled == in.own_settlements.end()) return std::nullopt;
  return first_near(settled->second, step.at, margin);
}

//! A message within `margin` of the end of the turn before it: SES-2 answers 409 while a
//! turn runs, and on a slow target every hop of a turn (its dispatch, the client's answer,
//! a held model answer) comes late, so the turn ends that much later (explore, seed 9000,
//! program 129: a turn ended 104 ms before the next message in the oracle and 217 ms after
//! it on a loaded target, which answered 409 where the oracle started a turn).
std::optional<time_ms> end_of_turn_before_message(const scripted_step& step,
                                                  const oracle_instants& in, time_ms margin) {
  if (!step.performs(scenarios::vocabulary::action_id::post_message)) return std::nullopt;
  return armed_racing(in.turns, step.at, margin);
}

//! Whether the step changes which tools are live (a PUT, a departure, a registration).
bool changes_tools(const scripted_step& step) {
  using scenarios::vocabulary::action_id;
  return step.performs(action_id::put_tools) || step.performs(action_id::delete_client) ||
         step.performs(action_id::vanish) || step.performs(action_id::register_client);
}

//! A step changing tools at the instant a held answer is applied decides whether the
//! answer's calls find their tools (TOOLS-5); on a real clock the answer is applied later,
//! after the step (explore, seed 8000, program 166: a PUT and a DELETE at that instant).
//! Asked for before the step, as a deadline armed before it: one the step (or a later one)
//! causes moves with it.
std::optional<time_ms> held_answer_applied(const scripted_step& step, const oracle_instants& in,
                                           time_ms margin) {
  if (!changes_tools(step)) return std::nullopt;
  return armed_racing(in.held_answers, step.at, margin);
}

//! An answer calling tools applied just before a step changing tools, held or not: an
//! answer given at once still reaches a slow target later (its model request leaves late),
//! and would find the tools as the step left them.
std::optional<time_ms> calling_answer_applied_before(const scripted_step& step,
                                                     const oracle_instants& in, time_ms margin) {
  if (!changes_tools(step)) return std::nullopt;
  for (const time_ms applied : in.calling_answers_applied) {
    if (applied <= step.at && step.at - applied < margin) return applied;
  }
  return std::nullopt;
}

//! A client leaving (DELETE, or vanishing) within `margin` of acking or answering a call on
//! its own: on a slow target the dispatch comes late and the client's own answer with it,
//! so it may come after the client left where the oracle had it before.
std::optional<time_ms> own_answer_of_leaving_client(const scripted_step& step,
                                                    const oracle_instants& in, time_ms margin) {
  using scenarios::vocabulary::action_id;
  if (!step.performs(action_id::delete_client) && !step.performs(action_id::vanish))
    return std::nullopt;
  const auto settled = in.own_settlements_by.find(step.actor);
  if (settled == in.own_settlements_by.end()) return std::nullopt;
  return first_near(settled->second, step.at, margin);
}

//! Its client's registration appearing after it (not a registration the step makes).
std::optional<time_ms> registration_of_its_client(const scripted_step& step,
                                                  const oracle_instants& in, time_ms margin) {
  const auto registered = in.registrations.find(step.actor);
  if (step.performs(scenarios::vocabulary::action_id::register_client) ||
      registered == in.registrations.end() || !appears_after(registered->second, step.at, margin)) {
    return std::nullopt;
  }
  return registered->second;
}

//! What a step races, in the order they are looked for.
constexpr step_race step_races[] = {
    deadline_armed_before,        dispatch_of_its_call,       its_call_settled_by_its_client,
    end_of_turn_before_message,   held_answer_applied,        calling_answer_applied_before,
    own_answer_of_leaving_client, registration_of_its_client, its_deadline_near_another,
};

//! A move that takes `program` clear of one race of its kind in `runs` (the oracle's runs
//! of it in both orders the target is compared with). True when it moved something.
using program_race = bool (*)(scenario& program, const std::vector<oracle_instants>& runs,
                              time_ms margin);

//! A client joining on its own within `margin` of a moment the target resolves a model
//! answer's tool names joins just after it instead. Why: whether an answer naming the
//! client's tool finds it live is decided there (TOOLS-5), and on a real clock a model
//! request leaves late and a held answer is applied that much later (explore, seed 7000,
//! program 177: an answer applied 26 ms before a registration in the oracle came after it
//! on a slow target, which dispatched where the oracle had failed the calls).
bool join_clear_of_resolutions(scenario& program, const std::vector<oracle_instants>& runs,
                               time_ms margin) {
  for (auto& client : program.clients) {
    if (!client.auto_join) continue;
    for (const auto& run : runs) {
      const auto registered = run.registrations.find(client.actor);
      if (registered == run.registrations.end()) continue;
      for (const time_ms resolved : run.resolutions) {
        if (std::abs(registered->second - resolved) < margin &&
            resolved + margin > client.join_at) {
          client.join_at = resolved + margin;
          program.duration = std::max(program.duration, client.join_at + 1);
          return true;
        }
      }
    }
  }
  return false;
}

//! Of two clients joining on their own with one requested name within `margin` of each
//! other, the later joins `margin` after the earlier instead. Why: which registers first
//! decides which gets the name and which the suffixed one (REG-4), so on a real clock
//! their order is a coin toss, and the reference's runs that look for races (in the
//! program's order) are not the run the target is compared with (in the target's order;
//! explore, 100/300/400 ms timeouts, seed 13022, program 356: three `web` joining 1 ms
//! apart; in the target's order the model's `web_2__read` went to c3, whose own ack of it
//! fell at the instant of its DELETE, a race only that order had, in every run).
bool joins_clear_of_each_other(scenario& program, const std::vector<oracle_instants>& /*runs*/,
                               time_ms margin) {
  for (auto& later : program.clients) {
    if (!later.auto_join) continue;
    for (const auto& earlier : program.clients) {
      if (&earlier == &later || !earlier.auto_join ||
          earlier.requested_name != later.requested_name || earlier.join_at > later.join_at ||
          later.join_at - earlier.join_at >= margin) {
        continue;
      }
      // Of two at one instant, the one listed first is the earlier.
      if (earlier.join_at == later.join_at && &earlier > &later) continue;
      later.join_at = earlier.join_at + margin;
      program.duration = std::max(program.duration, later.join_at + 1);
      return true;
    }
  }
  return false;
}

//! A task caller posting its results within `margin` of a deadline armed before them (its
//! task's interrupt deadline, TASK-7) answers later instead, clear of it. Why: on a real
//! clock the target's timer may fire up to the tolerance late and the answer arrive late,
//! so whether the results beat the deadline is a coin toss (explore, seed 9000, program 91:
//! results at 4,165 ms against a 4 s interrupt deadline, caught only by running it again).
bool answers_clear_of_deadlines(scenario& program, const std::vector<oracle_instants>& runs,
                                time_ms margin) {
  for (auto& caller : program.task_callers) {
    for (const auto& run : runs) {
      const auto answers = run.caller_answers.find(caller.actor);
      if (answers == run.caller_answers.end()) continue;
      for (const time_ms answered : answers->second) {
        if (const auto due = armed_racing(run.deadlines, answered, margin)) {
          caller.answer_delay += *due + margin - answered;
          program.duration += *due + margin - answered;
          return true;
        }
      }
    }
  }
  return false;
}

//! A task caller polling where a slow target would show it something else than the
//! reference did polls less often instead, so that the poll falls clear after the instant
//! it races:
//! - within `margin` of a deadline armed before the poll (its task's interrupt deadline,
//!   TASK-7): the target's timer may fire up to the tolerance late, so whether the poll
//!   finds the task `interrupted` or `failed` is a coin toss (explore, 100/300/400 ms
//!   timeouts, seed 80, program 967: a poll at the instant the deadline passed found
//!   `interrupted` where the reference's found `failed`, in every run);
//! - within `margin` after a model answer to its task was applied, when a caller that saw
//!   the task `interrupted` a poll later could no longer answer before its interrupt
//!   deadline: a slow target applies the answer after the poll, which then finds the task
//!   still `processing`, and the next poll finds it `failed` (seed 81, program 371, where
//!   the reference's caller found `interrupted` and answered). A poll late that changes
//!   nothing else is allowed for when judging (allow_poll_lag), so no move is made then.
//! Polls follow one another (each poll_every after the caller's last request), so slowing
//! them all by the distance moves the racing one at least that far.
bool polls_clear_of_task_changes(scenario& program, const std::vector<oracle_instants>& runs,
                                 time_ms margin) {
  static const std::vector<time_ms> none;
  for (auto& caller : program.task_callers) {
    // Seen a poll late, the task's round is answered this long after the poll that missed it.
    const time_ms answered_a_poll_late = caller.poll_every + caller.answer_delay + margin;
    for (const auto& run : runs) {
      const auto polls = run.caller_polls.find(caller.actor);
      if (polls == run.caller_polls.end()) continue;
      const auto answers = run.task_answers_applied.find(caller.actor);
      const auto& applied = answers == run.task_answers_applied.end() ? none : answers->second;
      for (const time_ms polled : polls->second) {
        auto changed = armed_racing(run.deadlines, polled, margin);
        for (auto a = applied.begin(); !changed && a != applied.end(); ++a) {
          if (appears_after(polled, *a, margin) &&
              polled + answered_a_poll_late >= *a + program.interrupt_timeout_ms)
            changed = *a;
        }
        if (!changed) continue;
        caller.poll_every += *changed + margin - polled;
        program.duration += *changed + margin - polled;
        return true;
      }
    }
  }
  return false;
}

//! A client due to ack or answer a call on its own within `margin` of a deadline armed
//! before (the call's ack deadline, CALL-3) does so later instead, clear of it. Why: on a
//! real clock the target's timer may fire up to the tolerance late and the client's
//! request arrive late, so which of the two settles the call is a coin toss (explore, seed
//! 9200, program 168: an error result 1,010 ms after the dispatch against a 1 s ack
//! deadline; the loaded target's timer fired late and the result completed the call the
//! oracle failed with ack_timeout). Due, not sent: the oracle's client drops its answer to a
//! call that failed first. The generator keeps each delay clear of its own deadline only.
bool own_answers_clear_of_deadlines(scenario& program, const std::vector<oracle_instants>& runs,
                                    time_ms margin) {
  for (auto& client : program.clients) {
    for (const auto& run : runs) {
      const auto dispatched = run.dispatches_to.find(client.actor);
      if (dispatched == run.dispatches_to.end()) continue;
      for (const time_ms at : dispatched->second) {
        for (auto [does, delay] : {std::pair{client.acks, &client.ack_delay},
                                   std::pair{client.answers, &client.result_delay}}) {
          if (!does) continue;
          const time_ms when = at + *delay;
          if (const auto due = armed_racing(run.deadlines, when, margin)) {
            *delay += *due + margin - when;
            program.duration += *due + margin - when;
            return true;
          }
        }
      }
    }
  }
  return false;
}

//! A client whose TTL runs out within `margin` of a turn's answer calling tools being
//! applied, either side, lives whole seconds longer instead, until it runs out at least
//! `margin` after. Why: whether the answer finds the client's tools live is decided there
//! (TOOLS-5), and on a real clock the target's timer may fire up to the tolerance late and
//! the answer is applied late (explore, 100/300/400 ms timeouts, seed 13087, program 2510:
//! an answer held 1.5 s and applied 14 ms before its client's TTL ran out dispatched the
//! call in the reference; on the target the client had expired, in every run). Neither is
//! a step, so steps_clear_of_races cannot part them: moving the registration moves the
//! message after it, and the answer with it.
bool expiries_clear_of_answers(scenario& program, const std::vector<oracle_instants>& runs,
                               time_ms margin) {
  for (auto& client : program.clients) {
    if (client.lifetime.type != protocol::lifetime::kind::ttl) continue;
    for (const auto& run : runs) {
      const auto expired = run.expiries.find(client.actor);
      if (expired == run.expiries.end()) continue;
      for (const time_ms applied : run.calling_answers_applied) {
        if (std::abs(applied - expired->second) >= margin) continue;
        const time_ms later_by = applied + margin - expired->second;
        client.lifetime.seconds += (later_by + 999) / 1000;
        return true;
      }
    }
  }
  return false;
}

//! Leaves out the first step that could not run in any of `runs` (it acts on a call the
//! reference never dispatched). Why: on a real clock such a step waits out the whole window
//! for what a slow target might still owe, and the steps after it go out that late, past
//! what they raced in the reference (explore, seed 9000, program 138: an ack waited 430 ms
//! for a call never dispatched, and the DELETE after it came after a held answer's
//! application the oracle had it precede). In the reference it sends nothing, and a target
//! that dispatched the call shows that in its events.
bool without_unplayable_step(scenario& program, const std::vector<oracle_instants>& runs,
                             time_ms /*margin*/) {
  for (const std::size_t step : runs.front().unplayable_steps) {
    if (step >= program.steps.size()) continue;
    const bool in_every_run = std::all_of(
        runs.begin(), runs.end(),
        [&](const oracle_instants& run) { return run.unplayable_steps.contains(step); });
    if (!in_every_run) continue;
    program.steps.erase(program.steps.begin() + static_cast<std::ptrdiff_t>(step));
    return true;
  }
  return false;
}

//! The first step that races something (step_races) moves to just after that instant, with
//! the steps after it (as clear_of does for a client's delays). When the instant it races
//! is its own, a step listed after it at that instant stays: it may be what caused the
//! instant, and moving a cause with the step that races it is a chase that never ends
//! (explore, seed 9200, program 168: a PUT raced the answer to a message at its own
//! instant, listed after it; both moved 800 ms at each of 16 moves, and the program was
//! judged still racing).
bool steps_clear_of_races(scenario& program, const std::vector<oracle_instants>& runs,
                          time_ms margin) {
  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    // A step that only checks (the last one lasting_until_settled adds) sends nothing, so
    // nothing it could race. Moving it only made the program last longer and reach further
    // each time it was made to last (seed 12128: 2 s more each time, as a client pinged
    // until the new end and its TTL expired after it), until the program was left out.
    if (program.steps[i].action.empty()) continue;
    for (const auto& run : runs) {
      for (const step_race race : step_races) {
        const auto instant = race(program.steps[i], run, margin);
        if (!instant) continue;
        const time_ms was = program.steps[i].at;
        const time_ms shift = *instant + margin - was;
        program.steps[i].at += shift;
        for (std::size_t later = i + 1; later < program.steps.size(); ++later) {
          // Listed after the step at its instant, which is the instant it races.
          const bool may_be_the_cause = *instant == was && program.steps[later].at == was;
          if (!may_be_the_cause) program.steps[later].at += shift;
        }
        steps_in_time_order(program);
        program.duration += shift;
        return true;
      }
    }
  }
  return false;
}

//! The races a real-clock program moves clear of, in the order they are looked for.
constexpr program_race program_races[] = {
    joins_clear_of_each_other,   join_clear_of_resolutions,      answers_clear_of_deadlines,
    polls_clear_of_task_changes, own_answers_clear_of_deadlines, expiries_clear_of_answers,
    without_unplayable_step,     steps_clear_of_races,
};

//! A program moved clear of races, and the reference's runs of it in both orders
//! (reference_order) on a real clock, which found no race.
struct cleared_program {
  scenario program;
  std::vector<actors::run_result> runs;
};

//! The program moved clear of every race above, on a real clock (see "Races on a real
//! clock"), in at most `moves_left` moves (what is left is counted down); none when it
//! still races after them. Why none: a run of a program that races says nothing about SPEC
//! either way, and judging it as it was is how a correct target got a divergence (explore,
//! seed 9200, program 168, before the chase in steps_clear_of_races was mended).
std::optional<cleared_program> clear_of_races(scenario program, std::uint64_t seed,
                                              const program_shape& shape, int& moves_left) {
  if (!shape.real_clock) return cleared_program{std::move(program), {}};
  const time_ms margin = 2 * shape.tolerance_ms;
  auto moved_clear = [&](const std::vector<oracle_instants>& instants) {
    return std::any_of(std::begin(program_races), std::end(program_races),
                       [&](program_race race) { return race(program, instants, margin); });
  };
  for (; moves_left > 0; --moves_left) {
    // The seed's order first: a race it shows moves the program without the harness's
    // order being run (a run of the reference was half the harness's CPU on a real clock,
    // most of it here). The program is cleared only once both orders show no race.
    std::vector<actors::run_result> runs;
    runs.push_back(reference_order(program, seed, /*model_when_idle=*/false));
    std::vector<oracle_instants> instants{oracle_instants_of(runs[0])};
    if (moved_clear(instants)) continue;
    runs.push_back(reference_order(program, seed, /*model_when_idle=*/true));
    instants.push_back(oracle_instants_of(runs[1]));
    if (!moved_clear(instants)) return cleared_program{std::move(program), std::move(runs)};
  }
  return std::nullopt;
}

//! The program a remote target runs: clear of races (clear_of_races) and lasting until
//! the reference has settled everything (lasting_until_settled), in most_moves_clear_of_races
//! moves in all; none when it still races. Why again after it lasts: the reference's runs
//! that moved it clear of races end at its duration, and what the program reaches once it
//! lasts longer may race too (explore, 100/300/400 ms timeouts, 384 programs at once, seed
//! 8384, program 1302: a task's poll at the instant of its interrupt deadline, both past the
//! duration, found `interrupted` on the target where the reference found `failed`, in every
//! run). So what is judged is always a program whose own runs found no race. Why it stops
//! there though making it last might change it again: a program may reach further each time
//! it lasts longer and never stop (a client pinging until the end expires a TTL after it,
//! 5 s later each time), and each time it goes on something moved, so the moves bound it.
std::optional<lasting_program> clear_and_lasting(const scenario& generated, std::uint64_t seed,
                                                 const program_shape& shape) {
  int moves_left = most_moves_clear_of_races;
  auto cleared = clear_of_races(lasting_past_joins(generated), seed, shape, moves_left);
  for (;;) {
    if (!cleared) return std::nullopt;
    // The runs that found no race are the ones making it last reads.
    auto lasting =
        lasting_until_settled(std::move(cleared->program), seed, shape, std::move(cleared->runs));
    // Its runs are kept only when making it last changed nothing. On a virtual clock
    // nothing races.
    if (!shape.real_clock || lasting.seed_order) return lasting;
    const int moves_before = moves_left;
    cleared = clear_of_races(std::move(lasting.program), seed, shape, moves_left);
    if (cleared && moves_left == moves_before) {
      return lasting_program{std::move(cleared->program), std::move(cleared->runs[0]),
                             std::move(cleared->runs[1])};
    }
  }
}

//! Where the comparison of a run ends: where the target's run ends.
time_ms end_of_run(const scenario& program, const program_shape& shape) {
  return shape.real_clock ? scenarios::end_of_steps(program) : scenarios::end_of(program);
}

//! Compares the target's run with the reference's interleavings of `program`: sets
//! j.divergence to where the one that agreed longest first differs, with that one's trace
//! as j.oracle_trace, or resets it when one agrees. `harness_order`: over HTTP on a real
//! clock, the reference's run in the harness's own order (judge_on), tried first; none on
//! a virtual clock, where that run is `oracle`.
void compare_with_interleavings(judgement& j, const scenario& program, std::uint64_t seed,
                                runner& on, const program_shape& shape,
                                const actors::run_result& target, const actors::run_result& oracle,
                                const actors::run_result* harness_order) {
  j.oracle_trace = oracle.trace;
  const time_ms end = end_of_run(program, shape);
  // Why wider by the harness's lateness: on a real clock a step that went out late shows
  // its effects that much after its written time, through no fault of the target.
  const time_ms tolerance_ms = shape.tolerance_ms + target.harness_late_ms;
  const scenario* real_clock_program = shape.real_clock ? &program : nullptr;
  const auto observed = observed_in_run(target.trace, shape.real_clock ? end + tolerance_ms : end,
                                        real_clock_program);
  // On a real clock what the reference showed is compared until a task's answers, which
  // may lag polls behind it (task_poll_lag), can still show by the end of the target's
  // run; lasting_until_settled made the run that much longer than the reference's last
  // showing.
  const time_ms compared_until =
      shape.real_clock ? end - task_poll_lag(oracle.trace, program) : end;
  j.divergence =
      divergence_from(oracle.trace, observed, compared_until, tolerance_ms, real_clock_program);
  // Actors acting at one instant may go in any order (SPEC leaves it open), and the
  // target's order need not be the oracle's for this seed: the target diverges only when
  // no interleaving of the reference shows what it showed. What is reported is the
  // interleaving that agreed longest: the seed's own may differ first only in an order
  // SPEC leaves open (which of two clients of one app is web_2), the real difference later
  // (explore_over_http, interrupt_deadline_early: the names were reported, and the
  // scenario written from them passed on the faulty target).
  auto compare_with = [&](const actors::run_result& alternative) {
    auto differs = divergence_from(alternative.trace, observed, compared_until, tolerance_ms,
                                   real_clock_program);
    if (!differs) return j.divergence.reset();
    if (differs->at <= j.divergence->at) return;
    j.divergence = std::move(differs);
    j.oracle_trace = alternative.trace;
  };
  // Over HTTP the first one tried is the harness's own order, the model answering once
  // the actors are idle: an actor's DELETE at the instant of a model step then goes before
  // the answer, which in-process only some seeds show (and TOOLS-5 gives a call to a live
  // client's tool only). On a virtual clock that order is the oracle (judge_on), and the
  // first tried is the seed's own (seed + 0).
  const std::uint64_t first_other = on.over_http() ? 0 : 1;
  for (std::uint64_t other = first_other; j.divergence && other <= other_interleavings; ++other) {
    // Not `c ? *harness_order : run_in_process(...)`: that expression would copy the run.
    if (other == 0 && harness_order != nullptr) {
      compare_with(*harness_order);
    } else {
      compare_with(run_in_process(program, seed + other, {}));
    }
  }
  // Clients registering at one instant take names in the order they arrive (REG-5), and
  // a few sampled orders rarely hold the target's: the reference follows it instead.
  // Found by explore_over_http: five clients of one app registering at one instant.
  const auto registered = actors::registration_order(target.trace);
  for (std::uint64_t other = 0; j.divergence && registered.size() > 1 && other < guided_tries;
       ++other) {
    compare_with(run_in_process(program, seed + other, {}, on.over_http(), false, registered));
  }
}

//! `screened`: the reference's run of `generated` with `seed`, where the caller made it
//! already (--focus screens programs on it); in-process it is the oracle's run.
//! `may_start`, when given, is asked with the program as it will run (over HTTP: made to
//! last) just before the target's run starts; false leaves it unrun (`past_budget`).
judgement judge_on(const scenario& generated, std::uint64_t seed, runner& on,
                   const program_shape& shape,
                   std::optional<actors::run_result> screened = std::nullopt,
                   const std::function<bool(const scenario&)>& may_start = {}) {
  judgement j;
  j.drawn = generated;
  j.program = generated;
  // The reference's runs before the target's run and after it hold a slot; the target's run,
  // which mostly waits, does not.
  reference_slots::held computing(on.slots());
  std::optional<actors::run_result> harness_order;
  if (on.over_http()) {
    auto lasting = clear_and_lasting(generated, seed, shape);
    if (!lasting) {
      j.still_racing = true;
      return j;
    }
    j.program = std::move(lasting->program);
    // The program judged is not the one screened (it moved clear of races); the reference's
    // runs that last found it clear of races are its runs.
    screened = std::move(lasting->seed_order);
    harness_order = std::move(lasting->harness_order);
  }
  const scenario& program = j.program;
  // Over HTTP on a virtual clock the oracle is the reference's run in the harness's own
  // order (the model answering once the actors are idle), and the seed's is run only when
  // that one does not agree (compare_with_interleavings). Why: it is the order the harness
  // drives a target in, so a correct target agrees with it (explore --bundled, seed 41:
  // 2,000 programs of 2,000, the seed's order 1,988), and its instants are where a target's
  // clock must stop; both orders cost two of the reference's runs a program, half of them
  // again once the program was made to last, about a sixth of a program's CPU time. A target
  // that took another order SPEC allows is compared with the seed's and others, and runs
  // again with their stops where its clock did not stop (below).
  const bool harness_first = on.over_http() && !shape.real_clock;
  std::optional<actors::run_result> oracle;
  if (harness_first) {
    oracle = harness_order ? std::move(harness_order)
                           : run_in_process(program, seed, {}, /*model_when_idle=*/true);
    harness_order.reset();
  } else if (!on.is_oracle()) {
    oracle = screened ? std::move(screened) : run_in_process(program, seed, {});
  }
  // Lock-step: a target's clock stops where the oracle showed something. On a real clock
  // the first alternative tried is the harness's own order (compare_with_interleavings).
  std::vector<time_ms> clock_stops;
  if (harness_first) {
    clock_stops = stops_of(oracle->trace);
  } else if (on.over_http() && !harness_order) {
    harness_order = run_in_process(program, seed, {}, /*model_when_idle=*/true);
  }
  // The oracle's own run is the target's run too.
  computing.release();
  if (may_start && !may_start(program)) {
    j.past_budget = true;
    return j;
  }
  // A target's run, compared; a second one only when the first diverged where its clock
  // did not stop (stops_missed below).
  for (int attempt = 0;; ++attempt) {
    auto target = on.is_oracle() && screened
                      ? protocol::outcome<actors::run_result>(std::move(*screened))
                      : on.run(program, seed, clock_stops);
    reference_slots::held comparing(on.slots());
    if (!target) {
      j.error = target.error();
      return j;
    }
    j.reached = oracle ? oracle->life_cycle_reached : target->life_cycle_reached;
    j.requests = 0;
    for (const auto& r : target->trace.records()) {
      if (r.kind == "request") ++j.requests;
    }
    j.target_trace = target->trace;
    const auto judged = actors::judge(program, target->trace);
    j.unanswered = judged.unanswered;
    if (!j.unanswered.empty()) return j;
    j.problems.clear();
    j.spec_ids.clear();
    for (const auto& v : judged.violations) {
      j.problems.push_back("invariant " + actors::describe(v));
      j.spec_ids.push_back(v.spec_id);
    }
    if (!oracle) return j;
    compare_with_interleavings(j, program, seed, on, shape, *target, *oracle,
                               harness_order ? &*harness_order : nullptr);
    // On a virtual clock the target's clock stopped where the oracle (the harness's order)
    // showed something, and a target learns the time only at a stop: a deadline of another
    // order (the one that agreed longest) shows at the next stop instead. That order is
    // SPEC's as much as the oracle's, so the target runs again, stopping there too.
    // Found by explore, seed 42, program 910: two clients of one app registered in the other
    // order on the target, so its ack timeout was due at 4,893 ms, where neither order the
    // stops came from showed anything, and the target showed it at the next stop, 5,844 ms.
    if (!j.divergence || attempt > 0 || clock_stops.empty()) break;
    auto missed = stops_missed(j.oracle_trace, clock_stops);
    if (missed.empty()) break;
    clock_stops = std::move(missed);
  }
  if (j.divergence) {
    for (auto& line : actors::describe(*j.divergence))
      j.problems.push_back(std::move(line));
    j.spec_ids.insert(j.spec_ids.end(), j.divergence->spec_ids.begin(),
                      j.divergence->spec_ids.end());
  }
  return j;
}

//! The SPEC IDs a life-cycle point cites ("CALL-3" or "CALL-3, CALL-6").
std::vector<std::string> rules_of(const reference_server::life_cycle_point& point) {
  std::vector<std::string> ids;
  std::string id;
  for (const char c : point.rules + ",") {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-') {
      id += c;
    } else if (!id.empty()) {
      ids.push_back(std::move(id));
      id.clear();
    }
  }
  return ids;
}

//! Which life-cycle points cite one of `rules`, index for index with life_cycle_points().
std::vector<bool> points_citing(const std::vector<std::string>& rules) {
  const auto& points = reference_server::life_cycle_points();
  std::vector<bool> citing(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (const auto& id : rules_of(points[i]))
      citing[i] = citing[i] || std::find(rules.begin(), rules.end(), id) != rules.end();
  }
  return citing;
}

bool reaches_any(const std::vector<bool>& reached, const std::vector<bool>& wanted) {
  for (std::size_t i = 0; i < reached.size() && i < wanted.size(); ++i) {
    if (reached[i] && wanted[i]) return true;
  }
  return false;
}

//! Reports progress and nothing else (RapidCheck's own reporter writes to stderr).
class quiet_listener final : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

//! The state of one search: its budget, progress and result.
struct search {
  explicit search(const explore_options& o) : options(o) {}
  const explore_options& options;
  clock_type::time_point started = clock_type::now();
  std::atomic<int> claimed{0};
  std::atomic<bool> stop{false};
  std::atomic<bool> budget_spent{false};  // ends_within_budget
  std::mutex mutex;                       // guards the fields below
  explore_progress progress;
  explore_result result;
  std::vector<std::uint64_t> requests_per_program;
  //! The union of what the reference reached in the programs judged (coverage).
  std::vector<bool> reached = std::vector<bool>(reference_server::life_cycle_points().size());

  //! --until-coverage: the share of life-cycle points asked for is reached.
  bool covered_enough() {
    if (!options.until_coverage_percent) return false;
    std::lock_guard lock(mutex);
    const auto count = static_cast<std::size_t>(std::count(reached.begin(), reached.end(), true));
    return count * 100 >=
           static_cast<std::size_t>(*options.until_coverage_percent) * reached.size();
  }
  bool over_budget() const {
    return budget_spent ||
           (options.time_budget && clock_type::now() - started >= *options.time_budget);
  }
  //! Whether `program` may start. On a real clock a program takes its length in wall
  //! time: once one was judged, a program that would end past the time budget is not
  //! started, and once `skips_that_spend_the_budget` in a row were not, the budget is spent
  //! (no program starts after that, and generating stops). Why: the programs in flight
  //! when the budget ended ran on for up to a program's length (at 256 at once, a 40 s
  //! budget took 54 s). Why not spend it at the first: one long program then ended a
  //! search with a quarter of its budget left (a 40 s budget, 29.9 s).
  bool ends_within_budget(const scenario& program) {
    if (!options.time_budget || !options.shape.real_clock) return true;
    {
      std::lock_guard lock(mutex);
      if (progress.programs == 0) return true;
    }
    // Its duration, not only its steps: what the judge makes it last reaches past the last
    // step as drawn, and a program at 256 at once took 2-5 times its drawn length.
    const std::chrono::milliseconds length(scenarios::end_of(program));
    if (clock_type::now() + length <= started + *options.time_budget) {
      skipped_in_a_row = 0;
      return true;
    }
    if (++skipped_in_a_row >= skips_that_spend_the_budget) budget_spent = true;
    return false;
  }
  //! Why a run of skips, not the time left: what is left must be shorter than most
  //! programs, which nothing knows beforehand; drawing on after that only loads the cores
  //! the programs in flight share.
  static constexpr int skips_that_spend_the_budget = 16;
  std::atomic<int> skipped_in_a_row{0};
  double seconds() const {
    return std::chrono::duration<double>(clock_type::now() - started).count();
  }
  //! The points --focus leans toward (empty without it).
  std::vector<bool> focused =
      options.focus_rules.empty() ? std::vector<bool>{} : points_citing(options.focus_rules);
  void ran(const judgement& j) {
    std::lock_guard lock(mutex);
    ++progress.programs;
    if (reaches_any(j.reached, focused)) ++result.focused_programs;
    progress.requests += j.requests;
    requests_per_program.push_back(j.requests);
    for (std::size_t i = 0; i < j.reached.size() && i < reached.size(); ++i) {
      if (j.reached[i]) reached[i] = true;
    }
    progress.seconds = seconds();
    if (options.progress) options.progress(progress);
  }
  //! Reports how far shrinking `failure` has come: as it starts, and after each smaller
  //! program judged.
  void shrank(const explore_failure& failure) {
    std::lock_guard lock(mutex);
    progress.shrinking = true;
    progress.shrink_runs = failure.shrink_runs;
    progress.shrink_steps = failure.shrink_steps;
    progress.seconds = seconds();
    if (options.progress) options.progress(progress);
  }
  void counted_retry(const judgement& j) {
    std::lock_guard lock(mutex);
    if (result.retried++ == 0) {
      result.first_retried = j.problems;
      result.first_retried_program = progress.programs + 1;
    }
  }
  void counted_still_racing() {
    std::lock_guard lock(mutex);
    if (result.left_out_racing++ == 0) result.first_left_out_program = progress.programs + 1;
  }
  void counted_unanswered(const judgement& j) {
    std::lock_guard lock(mutex);
    if (result.unanswered_retried++ == 0) {
      result.first_unanswered = j.unanswered;
      result.first_unanswered_program = progress.programs + 1;
    }
  }
  void failed_to_use(const protocol::api_error& error) {
    std::lock_guard lock(mutex);
    if (!result.error) result.error = error;
    stop = true;
  }
};

//! `program` with the clients that registered at one instant spread 1 ms apart, in the
//! order the target registered them. Why: SPEC leaves that order open (REG-6), and a
//! client's name (web, web_2) and so what a model answer naming it reaches follow from
//! it; the oracle's run of the written program may take another order than the target
//! took and pin what that order shows (explore_over_http, unavailable_tool_dispatched: the
//! target had c2 as web_2, the oracle c3, which had expired, and the written check for
//! c2's failed call counted none). Written out, every run takes the target's order.
scenario registrations_in_order_of(scenario program, const actors::trace& target) {
  std::map<std::string, std::string> actor_of;  // client id -> actor
  for (const auto& r : target.records()) {
    if (r.kind != "response" || r.data.value("status", 0) != 201) continue;
    const auto id = protocol::string_at(protocol::member_at(r.data, "body"), "client_id");
    if (!id.empty()) actor_of.emplace(id, r.actor);
  }
  std::map<std::string, std::size_t> rank;  // actor -> its place in the target's order
  const std::string registered(protocol::to_string(protocol::event_type::client_registered));
  for (const auto& r : target.records()) {
    if (r.kind != "event" || protocol::string_at(r.data, "type") != registered) continue;
    const auto actor =
        actor_of.find(protocol::string_at(protocol::member_at(r.data, "data"), "client_id"));
    if (actor != actor_of.end()) rank.emplace(actor->second, rank.size());
  }
  // Each join at an instant: its place, and where it is written (a client or a step).
  struct join {
    std::size_t place;
    time_ms* written;
  };
  std::map<time_ms, std::vector<join>> joins;
  for (auto& client : program.clients) {
    const auto place = rank.find(client.actor);
    if (client.auto_join && place != rank.end())
      joins[client.join_at].push_back({place->second, &client.join_at});
  }
  for (auto& step : program.steps) {
    const auto place = rank.find(step.actor);
    if (step.performs(scenarios::vocabulary::action_id::register_client) && place != rank.end())
      joins[step.at].push_back({place->second, &step.at});
  }
  for (auto& [at, group] : joins) {
    if (group.size() < 2) continue;
    std::sort(group.begin(), group.end(),
              [](const join& a, const join& b) { return a.place < b.place; });
    for (std::size_t i = 0; i < group.size(); ++i)
      *group[i].written = at + static_cast<time_ms>(i);
  }
  steps_in_time_order(program);
  return program;
}

void triage_and_verify(explore_failure& failure, runner& on, const program_shape& shape, int runs) {
  for (int i = 0; i < runs; ++i) {
    // The program as drawn: judging the judged one again would move it clear of races and
    // make it last once more, and it may then differ from the run that diverged (explore,
    // seed 82: a divergence that repeated in every run of the drawn program was labelled
    // intermittent, 0 of 1).
    const auto j = judge_on(failure.drawn, failure.seed, on, shape);
    if (!j.unanswered.empty() || j.still_racing) continue;  // says nothing either way
    ++failure.triage_runs;
    if (j.failed()) ++failure.triage_failures;
  }
  failure.program =
      with_oracle_expectations(registrations_in_order_of(failure.program, failure.target_trace),
                               failure.seed, failure.divergence, shape.tolerance_ms);
  auto on_target = on.run(failure.program, failure.seed, {});
  failure.fails_on_target = on_target && fails(failure.program, on_target->trace);
  const auto oracle = run_in_process(failure.program, failure.seed, {});
  failure.passes_on_oracle = !fails(failure.program, oracle.trace);
}

//! One program, drawn at RapidCheck's full size. Why: RapidCheck gives its n-th test the
//! size n mod 101 and gen::inRange narrows its range by the size, so about half of every
//! 101 programs came out with one client, no task caller and a step or two, and found
//! nothing (a fault was first found near program 51 on every seed). Measured in-process
//! with SPEC's default timeouts over the 48 behavioural faults of bench/explore_power,
//! seeds 1-5: the median number of programs to the first divergence fell from 37-52 to
//! 3-10. Shrinking is unchanged: it shrinks the choices, not the size.
scenario drawn_program(const program_shape& shape) {
  return *rc::gen::resize(100, rc::gen::exec([&] { return detail::gen_program(shape); }));
}

//! A program drawn for the search, with the reference's run of it when --focus made one.
struct drawn {
  scenario program;
  std::optional<actors::run_result> screened;
};

//! Draws the next program (inside a RapidCheck property: its generation state is global,
//! so only the thread running the property draws). --focus: the first of a few drawn whose
//! run on the reference reaches a focused rule's move (the reference is cheap to run; the
//! target is what costs).
drawn draw(search& s) {
  drawn d{drawn_program(s.options.shape), std::nullopt};
  for (int n = 1; !s.focused.empty() && n < s.options.focus_draws; ++n) {
    d.screened = run_in_process(d.program, s.options.seed, {});
    if (reaches_any(d.screened->life_cycle_reached, s.focused)) break;
    d.screened.reset();
    d.program = drawn_program(s.options.shape);
  }
  return d;
}

//! The search's programs as a generator: a shrinkable it gives holds the program drawn,
//! and its shrinks are the programs smaller choices draw.
rc::Gen<drawn> program_generator(search& s) {
  return rc::gen::exec([&s] { return draw(s); });
}

//! Where one program is drawn from: a random state of its own, drawn in RapidCheck's case.
//! Why not the case itself: explore shrinks a divergence itself (shrink_from), several
//! smaller programs at a time, and needs the program's shrinkable, which RapidCheck keeps
//! to itself; the generator run from the same state gives the same one.
using program_origin = std::uint64_t;

program_origin drawn_origin() {
  // At full size: gen::inRange narrows its range by the size (drawn_program).
  return *rc::gen::noShrink(rc::gen::resize(
      100, rc::gen::inRange<program_origin>(0, std::numeric_limits<program_origin>::max())));
}

rc::Shrinkable<drawn> drawn_from(search& s, program_origin origin) {
  return program_generator(s)(rc::Random(origin), 100);
}

//! Whether the search should draw another program (shrinking draws its own).
bool draws_more(search& s) {
  const auto& options = s.options;
  return !s.stop && !s.over_budget() && !s.covered_enough() &&
         !(options.stopped_elsewhere && options.stopped_elsewhere()) &&
         s.claimed.fetch_add(1) < options.programs;
}

//! Judges a program the search drew (not a smaller one shrinking drew) and counts it.
//! Returns its judgement when it diverges; nothing when it did not, or said nothing, or the
//! target could not be used (the search then stops with that error).
std::optional<judgement> judge_drawn(search& s, runner& on, drawn d) {
  const auto& options = s.options;
  // Asked again as the target's run starts: the reference's runs before it (a slot each,
  // at 256 at once a wait of seconds) and the length it is made to last come after the
  // first ask (at 256 at once a 40 s budget still took 45-53 s without this).
  auto j = judge_on(d.program, options.seed, on, options.shape, std::move(d.screened),
                    [&s](const scenario& judged) { return s.ends_within_budget(judged); });
  if (j.past_budget) return std::nullopt;
  if (j.still_racing) {
    // Not run: on a real clock nothing it would show can be told from a race.
    s.counted_still_racing();
    return std::nullopt;
  }
  if (!j.unanswered.empty()) {
    // A target that did not answer a request (refused, reset, timed out, or slower than
    // the whole run) shows nothing about SPEC in that run: the program runs again, and a
    // target that still does not answer stops the search as an error, not a divergence
    // (check does the same for its cases; issue 21).
    auto again = judge_on(d.program, options.seed, on, options.shape);
    if (!again.unanswered.empty()) {
      int judged = 0;
      {
        std::lock_guard lock(s.mutex);
        judged = s.progress.programs;
      }
      s.failed_to_use(protocol::api_error{
          protocol::error_code::invalid_request,
          "it stopped answering at program " + std::to_string(judged + 1) + " (after " +
              std::to_string(judged) + " programs judged): " + again.unanswered +
              "; the run before: " + j.unanswered});
      return std::nullopt;
    }
    s.counted_unanswered(j);
    j = std::move(again);
  }
  if (j.error) {
    s.failed_to_use(*j.error);
    return std::nullopt;
  }
  if (j.failed() && on.over_http()) {
    // Over HTTP a divergence may be the timing of the wire rather than the target's
    // behaviour (on a real clock, a race with a deadline; on any, an arrival later than
    // the harness's settle time): it counts only when it shows again at once. One that
    // does not is named in the summary, not hidden.
    auto again = judge_on(d.program, options.seed, on, options.shape);
    if (!again.failed()) {
      s.counted_retry(j);
      j = std::move(again);
    }
  }
  s.ran(j);
  if (!j.failed()) return std::nullopt;
  return j;
}

//! Makes `j` the search's failure: the first divergence, or a smaller program that still
//! diverges while shrinking (shrinking keeps the last one that fails: it ends on the
//! smallest).
void keep_failing(explore_failure& failure, judgement&& j) {
  failure.drawn = std::move(j.drawn);
  failure.program = std::move(j.program);
  failure.problems = std::move(j.problems);
  failure.divergence = std::move(j.divergence);
  failure.spec_ids = std::move(j.spec_ids);
  failure.target_trace = std::move(j.target_trace);
  failure.oracle_trace = std::move(j.oracle_trace);
}

//! The search's first divergence, once it is this search's to report: stops the search,
//! and returns nothing when another program of this search or another process of `toolwire explore
//! --jobs` claimed one first (this search then stops without).
std::optional<explore_failure> claim_first(search& s, judgement&& j) {
  std::lock_guard lock(s.mutex);
  if (s.progress.divergences > 0) return std::nullopt;  // a program run beside it was first
  s.stop = true;
  if (s.options.claim_divergence && !s.options.claim_divergence()) return std::nullopt;
  ++s.progress.divergences;
  explore_failure failure;
  failure.seed = s.options.seed;
  failure.programs_before = s.progress.programs - 1;
  keep_failing(failure, std::move(j));
  return failure;
}

//! Work handed from the thread that draws (RapidCheck's generation state is global, so
//! only one thread draws) to workers that judge. Bounded, so that drawing stays a little
//! ahead of judging and a divergence stops the search soon after it is found.
template <typename Item>
class bounded_queue {
 public:
  explicit bounded_queue(std::size_t capacity) : capacity_(capacity) {}
  //! Waits for room; false once closed.
  bool push(Item item) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
    if (closed_) return false;
    items_.push_back(std::move(item));
    changed_.notify_all();
    return true;
  }
  //! The next item; nothing once closed and empty.
  std::optional<Item> pop() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    auto item = std::move(items_.front());
    items_.pop_front();
    changed_.notify_all();
    return item;
  }
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }

 private:
  std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Item> items_;
  bool closed_ = false;
};

//! Judges the programs handed to it, each on the first runner free, one thread per runner.
//! Destroying it waits for the runs in flight (a runner's run cannot be cut short).
class judging_pool {
 public:
  judging_pool(std::vector<runner>& runners, const explore_options& options)
      : queue_(runners.size()) {
    for (auto& on : runners) {
      workers_.emplace_back([this, &on, &options] {
        while (auto job = queue_.pop()) {
          if (job->handed_in < dropped_before_) continue;
          job->judged.set_value(judge_on(job->program.program, options.seed, on, options.shape,
                                         std::move(job->program.screened)));
        }
      });
    }
  }
  ~judging_pool() {
    drop_waiting();
    queue_.close();
  }
  judging_pool(const judging_pool&) = delete;
  judging_pool& operator=(const judging_pool&) = delete;

  std::size_t size() const { return workers_.size(); }
  std::future<judgement> judge(drawn program) {
    job j{std::move(program), {}, handed_in_++};
    auto judged = j.judged.get_future();
    queue_.push(std::move(j));
    return judged;
  }
  //! The programs handed in so far and not started are not judged: nobody will read them.
  void drop_waiting() { dropped_before_ = handed_in_; }

 private:
  struct job {
    drawn program;
    std::promise<judgement> judged;
    std::uint64_t handed_in = 0;  // its place in the order programs were handed in
  };
  std::uint64_t handed_in_ = 0;  // only the thread handing programs in touches it
  std::atomic<std::uint64_t> dropped_before_{0};
  bounded_queue<job> queue_;
  std::vector<std::jthread> workers_;  // declared last: joined before the queue goes
};

//! Runs RapidCheck over the search's programs: `property` is called once per program;
//! `programs` bounds the calls. RapidCheck does not shrink: each program is drawn from an
//! origin of its own, and shrink_from shrinks a divergence.
template <typename Property>
void check_property(const explore_options& options, int programs, Property property) {
  rc::detail::TestParams params;
  params.seed = options.seed;
  params.maxSuccess = programs;
  params.disableShrinking = true;
  quiet_listener listener;
  rc::detail::checkTestable(property, rc::detail::TestMetadata{}, params, listener);
}

//! Whether a smaller program's judgement shows a divergence. One that raced, went
//! unanswered or could not run says nothing, so shrinking keeps the program before it.
bool still_diverges(const judgement& j) {
  return !j.still_racing && !j.error && j.unanswered.empty() && j.failed();
}

//! Shrinks `failure`, the divergence of the program drawn from `origin`, the way
//! RapidCheck shrinks: the programs its shrinks of the program's choices draw are judged in
//! their order, the first that still diverges becomes the failure and its own shrinks are
//! judged next, until none does or the shrink budget ends.
//!
//! On several runners (a real-clock target, where a run mostly waits out real time) the
//! next smaller programs in that order are judged at once, and their judgements are read in
//! order: the first that still diverges is taken as soon as every one before it has been
//! read, and the rest are dropped. So how many run at once changes what shrinking costs
//! (the dropped runs), not what it finds, and a step takes about one run, not the slowest
//! of a batch.
void shrink_from(search& s, std::vector<runner>& runners, program_origin origin,
                 explore_failure& failure) {
  const auto& options = s.options;
  const auto started = clock_type::now();
  judging_pool pool(runners, options);
  struct candidate {
    rc::Shrinkable<drawn> shrinkable;
    std::future<judgement> judged;
  };
  std::deque<candidate> in_order;
  auto candidates = drawn_from(s, origin).shrinks();
  s.shrank(failure);
  for (;;) {
    if (options.shrink_budget && clock_type::now() - started >= *options.shrink_budget) {
      failure.shrink_out_of_time = true;
      return;
    }
    // Drawn on this thread: generation state is global (draw).
    while (in_order.size() < pool.size()) {
      auto next = candidates.next();
      if (!next) break;
      auto judged = pool.judge(next->value());
      in_order.push_back({std::move(*next), std::move(judged)});
    }
    if (in_order.empty()) return;  // no smaller program diverges
    auto judged = in_order.front().judged.get();
    auto shrinkable = std::move(in_order.front().shrinkable);
    in_order.pop_front();
    ++failure.shrink_runs;
    if (still_diverges(judged)) {
      ++failure.shrink_steps;
      keep_failing(failure, std::move(judged));
      candidates = shrinkable.shrinks();
      // Larger than the one taken: those not started are not run, the others end unread.
      pool.drop_waiting();
      in_order.clear();
    }
    s.shrank(failure);
  }
}

//! A search's first divergence and the origin of the program that diverged, from which
//! shrinking starts.
struct found_divergence {
  program_origin origin = 0;
  explore_failure failure;
};

//! Runs the search's programs `at_once` at a time, each worker on a runner of its own.
//! Returns the first divergence found, if any (after the other workers finished theirs).
std::optional<found_divergence> search_at_once(search& s, std::vector<runner>& runners) {
  bounded_queue<std::pair<program_origin, drawn>> queue(runners.size());
  // Written by the one worker whose divergence claim_first accepted, read after the join.
  std::optional<found_divergence> found;
  std::vector<std::thread> workers;
  for (auto& on : runners) {
    workers.emplace_back([&s, &on, &queue, &found] {
      while (auto item = queue.pop()) {
        // Drawn before the search stopped or ran out of time: not run (the time budget
        // stops generating, and a queued program is not judged yet).
        if (s.stop || s.over_budget() || !s.ends_within_budget(item->second.program)) continue;
        auto j = judge_drawn(s, on, std::move(item->second));
        if (!j) continue;
        auto failure = claim_first(s, std::move(*j));
        if (failure) found = found_divergence{item->first, std::move(*failure)};
      }
    });
  }
  check_property(s.options, s.options.programs, [&] {
    if (!draws_more(s)) return;
    const auto origin = drawn_origin();
    queue.push({origin, drawn_from(s, origin).value()});
  });
  queue.close();
  for (auto& worker : workers)
    worker.join();
  return found;
}

//! Runs the search's programs one at a time on `on`. Returns the first divergence found.
std::optional<found_divergence> search_one_at_a_time(search& s, runner& on) {
  std::optional<found_divergence> found;
  check_property(s.options, s.options.programs, [&] {
    if (!draws_more(s)) return;
    const auto origin = drawn_origin();
    auto d = drawn_from(s, origin).value();
    if (!s.ends_within_budget(d.program)) return;
    auto j = judge_drawn(s, on, std::move(d));
    if (!j) return;
    auto failure = claim_first(s, std::move(*j));
    if (!failure) return;
    found = found_divergence{origin, std::move(*failure)};
    RC_FAIL("the program misbehaves");
  });
  return found;
}

//! The search: one RapidCheck property over generated programs, on one target.
void search_on(search& s) {
  const auto& options = s.options;
  // Several runners only where programs may run at once: a real-clock target.
  const std::size_t at_once =
      options.target && options.shape.real_clock && options.programs_at_once > 1
          ? static_cast<std::size_t>(options.programs_at_once)
          : 1;
  reference_slots slots(std::max<std::ptrdiff_t>(1, std::thread::hardware_concurrency()));
  std::vector<runner> runners;
  for (std::size_t i = 0; i < at_once; ++i) {
    std::unique_ptr<program_runner> target;
    if (options.target) {
      auto made = options.target();
      if (!made) return s.failed_to_use(made.error());
      target = std::move(*made);
    }
    runners.emplace_back(std::move(target), options.faults, at_once > 1 ? &slots : nullptr);
  }
  auto found = at_once > 1 ? search_at_once(s, runners) : search_one_at_a_time(s, runners.front());
  if (!found) return;
  auto& mine = found->failure;
  if (options.shrink) shrink_from(s, runners, found->origin, mine);
  // In-process the target is deterministic: one re-run says all.
  triage_and_verify(mine, runners.front(), options.shape, options.target ? options.triage_runs : 1);
  std::lock_guard lock(s.mutex);
  sort_unique(mine.spec_ids);
  s.result.failure = std::move(mine);
}
}  // namespace

std::vector<std::string> focusable_rules() {
  std::vector<std::string> rules;
  for (const auto& point : reference_server::life_cycle_points()) {
    for (auto& id : rules_of(point))
      rules.push_back(std::move(id));
  }
  sort_unique(rules);
  return rules;
}

std::string explore_failure::label() const {
  // No re-run was judged (--triage 0, or the target did not answer any): nothing to say.
  if (triage_runs == 0) return "not triaged";
  return triage_failures == triage_runs ? "deterministic" : "intermittent";
}

bool fails(const scenarios::scenario& plan, const actors::trace& run) {
  return actors::judge(plan, run).broke_rules();
}

std::vector<std::string> judge(const scenario& program, std::uint64_t seed,
                               const reference_server::fault_set& faults) {
  runner on(nullptr, faults);
  return judge_on(program, seed, on, program_shape{}).problems;
}

program_judgement judge_program(const scenario& program, std::uint64_t seed,
                                const explore_options& options) {
  program_judgement judged;
  std::unique_ptr<program_runner> target;
  if (options.target) {
    auto made = options.target();
    if (!made) {
      judged.error = made.error();
      return judged;
    }
    target = std::move(*made);
  }
  runner on(std::move(target), options.faults);
  auto j = judge_on(program, seed, on, options.shape);
  judged.still_racing = j.still_racing;
  judged.problems = std::move(j.problems);
  judged.spec_ids = std::move(j.spec_ids);
  sort_unique(judged.spec_ids);
  judged.target_trace = std::move(j.target_trace);
  judged.oracle_trace = std::move(j.oracle_trace);
  judged.error = std::move(j.error);
  if (!judged.error && !j.unanswered.empty()) {
    judged.error = protocol::api_error{protocol::error_code::invalid_request,
                                       "it did not answer: " + j.unanswered};
  }
  return judged;
}

//! RapidCheck prints its global configuration, with a random seed explore never uses, to
//! stderr the first time it reads it. A second seed in the output would mislead whoever
//! reproduces a finding, so it is read once here with stderr closed.
void load_rapidcheck_configuration_quietly() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::fflush(stderr);
    const int saved = dup(STDERR_FILENO);
    const int null = open("/dev/null", O_WRONLY);
    if (saved < 0 || null < 0) {
      rc::detail::configuration();
    } else {
      dup2(null, STDERR_FILENO);
      rc::detail::configuration();
      std::fflush(stderr);
      dup2(saved, STDERR_FILENO);
    }
    if (null >= 0) close(null);
    if (saved >= 0) close(saved);
  });
}

namespace {

//! The nearest-rank `percent` percentile of `values` (0 when empty).
std::uint64_t percentile(std::vector<std::uint64_t> values, int percent) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t rank = (values.size() * static_cast<std::size_t>(percent) + 99) / 100;
  return values[std::max<std::size_t>(rank, 1) - 1];
}

}  // namespace

explore_result explore(const explore_options& options) {
  load_rapidcheck_configuration_quietly();
  search s(options);
  search_on(s);
  explore_result result = std::move(s.result);
  result.requests = s.progress.requests;
  const auto& points = reference_server::life_cycle_points();
  result.points_total = points.size();
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (s.reached[i]) {
      ++result.points_reached;
    } else {
      result.never_reached.push_back(points[i].describe());
    }
  }
  result.reached = s.reached;
  result.coverage_met = options.until_coverage_percent && s.covered_enough();
  result.requests_median = percentile(s.requests_per_program, 50);
  result.requests_p95 = percentile(s.requests_per_program, 95);
  result.seconds = s.seconds();
  result.programs_run = result.failure ? result.failure->programs_before + 1 : s.progress.programs;
  result.out_of_time = !result.failure && s.over_budget() && s.progress.programs < options.programs;
  return result;
}

}  // namespace toolwire::explore
