// The whole-program stage of one device as one job per cold run (cold_run.cpp), for the distributed runner
// (docs/mpi.md): rank 0 chooses the runs from its store as cold_stage does, hands each to a rank driving a device of
// that kind (a fresh process on that rank's device), and stores what comes back as cold_stage stores it.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "run/tuner_impl.hpp"
#include "workers/wire.hpp"

namespace pimg {

// One cold run the stage wants: a problem's stored row (its variant, configuration and identity).
struct ColdJob {
  std::size_t problem = 0;
  ResultRow row;
};

// The runs the whole-program stage of selected device `device` needs: per problem its top measure.cold.top rows;
// with resume, those whose cold row of the same identity is stored are left out.
std::vector<ColdJob> cold_jobs(const Tuner::Impl& m, std::size_t device, Store& store);
// A job's fields for a rank (cold_job_run reads them), and the selected device it was made for (field `at`).
wire::Message cold_job_message(std::size_t device, const ColdJob& job);
std::size_t cold_job_device(const wire::Message& job, std::size_t at);
// The job (cold_job_message's fields from `at` on) run once as a fresh process on selected device `device`.
EvalResult cold_job_run(const Tuner::Impl& m, std::size_t device, const wire::Message& job, std::size_t at);
// Stores a job's run as a run on selected device `device` (the kind's searched device) and says it, with `where`
// (the rank that ran it) after.
void cold_job_store(const Tuner::Impl& m, std::size_t device, const ColdJob& job, EvalResult r, Store& store,
                    TuneSummary& summary, RunObserver& obs, const std::string& where = "");

}  // namespace pimg
