// The worker side of the MPI backend (header-only, for worker programs linked with MPI; the backend
// itself never includes it): the plan file the backend writes, and the serve loop that runs one
// timed region per "run" command and answers with its times, max over ranks (see docs/mpi.md).
#pragma once
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace pimg::mpi {

// What workers fill buffers with at set-up; before each run they fill every buffer the run must write with that
// run's poison (the "run POISON" command: the executor alternates 0xA5 and 0x5A, so a pixel a rank skips shows
// whatever its correct value).
constexpr std::uint8_t kPoison = 0xA5;

// The plan as the backend wrote it (dir/plan.txt): "define NAME VALUE", "int V", "real V" and
// "buffer NAME" lines in the plan's argument order, and "source PATH", the variant's kernel source
// (path under kernels/; its expanded text is dir/source.txt, for workers that compile it); input
// buffers are dir/NAME.bin, the output "out" is written by rank 0 to dir/out.bin after every run.
struct PlanFile {
  std::string dir;
  std::string source;  // the variant's source path, as the store names it
  std::map<std::string, std::string> defines;
  std::vector<long long> ints;
  std::vector<double> reals;
  std::vector<std::string> buffers;

  const std::string& define(const std::string& name) const {
    auto it = defines.find(name);
    if (it == defines.end()) throw std::runtime_error("the plan has no define " + name);
    return it->second;
  }
  long long int_define(const std::string& name) const {
    const std::string& v = define(name);
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(v.c_str(), &end, 10);
    if (errno != 0 || end == v.c_str() || *end != '\0')
      throw std::runtime_error(name + " must be an integer, got '" + v + "'");
    return x;
  }
  std::string path(const std::string& buffer) const { return dir + "/" + buffer + ".bin"; }
};

inline PlanFile read_plan(const std::string& dir) {
  PlanFile p;
  p.dir = dir;
  std::ifstream in(dir + "/plan.txt");
  if (!in) throw std::runtime_error("cannot read " + dir + "/plan.txt");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string kind;
    ls >> kind;
    if (kind == "define") {
      std::string name, value;
      ls >> name;
      std::getline(ls >> std::ws, value);
      p.defines[name] = value;
    } else if (kind == "int") {
      long long v = 0;
      ls >> v;
      p.ints.push_back(v);
    } else if (kind == "real") {
      double v = 0;
      ls >> v;
      p.reals.push_back(v);
    } else if (kind == "source") {
      ls >> p.source;
    } else if (kind == "buffer") {
      std::string name;
      ls >> name;
      p.buffers.push_back(name);
    } else if (!kind.empty()) {
      throw std::runtime_error("plan.txt: unknown line '" + line + "'");
    }
  }
  return p;
}

// What every worker reads first: this rank, the rank count (checked against the plan's MPI_RANKS),
// OpenMP THREADS per rank, and a SCHEME among `schemes`. Throws with the reason.
struct Ranks {
  int rank = 0, ranks = 1, threads = 1;
  std::string scheme;
};

inline Ranks read_ranks(const PlanFile& plan, const std::vector<std::string>& schemes) {
  Ranks r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &r.ranks);
  r.scheme = plan.define("SCHEME");
  r.threads = static_cast<int>(plan.int_define("THREADS"));
  const long long want = plan.int_define("MPI_RANKS");
  bool known = false;
  std::string choices;
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    known = known || schemes[i] == r.scheme;
    choices += (i == 0 ? "" : i + 1 == schemes.size() ? " or " : ", ") + schemes[i];
  }
  if (!known) throw std::runtime_error("SCHEME must be " + choices + ", got '" + r.scheme + "'");
  if (r.threads < 1) throw std::runtime_error("THREADS must be at least 1");
  if (want != r.ranks)
    throw std::runtime_error("MPI_RANKS is " + std::to_string(want) + " but mpirun started " + std::to_string(r.ranks));
  return r;
}

// One rank's times for one run, in seconds (MPI_Wtime).
struct RunTimes {
  double total = 0;  // the timed region: from the common start to this rank's end
  double comm = 0;   // scatters, halo exchanges, waits, gathers (and the root's packing for them)
  double comp = 0;   // the computation itself (the convolution, the semblance points)
};

// A timed region's laps: lap(into) adds the time since the previous lap (or the start) to `into`;
// total() is the time from the start to the last lap.
class Laps {
 public:
  void lap(double& into) {
    const double now = MPI_Wtime();
    into += now - last_;
    last_ = now;
  }
  double total() const { return last_ - start_; }

 private:
  double start_ = MPI_Wtime(), last_ = start_;
};

// Everything a worker implements: set-up (outside every timed region), one timed run, and where
// rank 0 finds the gathered output after a run.
struct Job {
  std::function<void(std::uint8_t)> poison;  // before each run, outside the timed region: the run's poison
  std::function<RunTimes()> run;          // every rank, after a barrier
  std::function<const std::vector<std::uint8_t>&()> output;  // rank 0, after a run
  // Optional, rank 0 after a run, outside the timed region: a worker's own consistency check of the
  // run's result; a non-empty text fails the run with it ("error ...").
  std::function<std::string()> check = nullptr;
};

namespace detail {

inline void reply(int fd, const std::string& line) {
  const std::string text = line + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// The next command line from the backend; "quit" at end of file (the backend went away).
inline std::string read_command(int fd) {
  std::string line;
  char ch = 0;
  for (;;) {
    const ssize_t n = ::read(fd, &ch, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "quit";
    if (ch == '\n') return line;
    line += ch;
  }
}

// A broadcast the ranks other than 0 wait for without spinning a core (they sleep between tests),
// so idle ranks do not steal the oversubscribed CPU from the backend between runs.
inline int bcast_command(int command) {
  MPI_Request req;
  MPI_Ibcast(&command, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
  int done = 0;
  MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  while (!done) {
    const timespec pause{0, 200000};
    nanosleep(&pause, nullptr);
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  }
  return command;
}

inline bool write_output(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace detail

// The worker's main: `worker DIR`. Sets up with make_job (every rank; an exception on any rank is
// reported by rank 0 as "error ..."), answers "ready", then serves "run POISON" commands until "quit" or
// end of file: poison (with POISON, 0-255), barrier, run, max of the times over ranks, rank 0 runs the job's check (if
// any), writes DIR/out.bin and answers "ok TOTAL_MS COMM_MS COMP_MS".
inline int serve(int argc, char** argv, const std::function<Job(const PlanFile&)>& make_job) {
  // Die with mpirun: a killed mpirun (timeout) must not leave ranks running.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int cmd_fd = -1, reply_fd = -1;
  if (argc != 2) {
    if (rank == 0) std::fprintf(stderr, "usage: %s DIR (started by pimg-tune's mpi backend)\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const std::string dir = argv[1];
  if (rank == 0) {
    cmd_fd = ::open((dir + "/cmd").c_str(), O_RDONLY | O_CLOEXEC);
    reply_fd = ::open((dir + "/reply").c_str(), O_WRONLY | O_CLOEXEC);
    if (cmd_fd < 0 || reply_fd < 0) {
      std::fprintf(stderr, "cannot open the command pipes in %s: %s\n", dir.c_str(), std::strerror(errno));
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  Job job;
  std::string error;
  try {
    job = make_job(read_plan(dir));
  } catch (const std::exception& e) {
    error = e.what();
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
  }
  int failed = error.empty() ? 0 : 1, any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_failed) {
    if (rank == 0) detail::reply(reply_fd, "error " + (error.empty() ? "another rank failed to set up (see its log)" : error));
    MPI_Finalize();
    return 1;
  }
  if (rank == 0) detail::reply(reply_fd, "ready");
  for (;;) {
    int command = 0;  // 0: quit; 1 + the poison: run
    if (rank == 0) {
      const std::string line = detail::read_command(cmd_fd);
      unsigned value = 0;
      char extra = 0;
      if (std::sscanf(line.c_str(), "run %u %c", &value, &extra) == 1 && value <= 255) command = 1 + static_cast<int>(value);
    }
    command = detail::bcast_command(command);
    if (command < 1) break;
    job.poison(static_cast<std::uint8_t>(command - 1));
    MPI_Barrier(MPI_COMM_WORLD);
    const RunTimes t = job.run();
    double mine[3] = {t.total, t.comm, t.comp}, most[3] = {0, 0, 0};
    MPI_Reduce(mine, most, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      if (const std::string wrong = job.check ? job.check() : std::string(); !wrong.empty()) {
        detail::reply(reply_fd, "error " + wrong);
        continue;
      }
      if (!detail::write_output(dir + "/out.bin", job.output())) {
        detail::reply(reply_fd, "error cannot write " + dir + "/out.bin");
        continue;
      }
      char line[128];
      std::snprintf(line, sizeof line, "ok %.9g %.9g %.9g", most[0] * 1e3, most[1] * 1e3, most[2] * 1e3);
      detail::reply(reply_fd, line);
    }
  }
  MPI_Finalize();
  return 0;
}

}  // namespace pimg::mpi
