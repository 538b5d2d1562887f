// The conv family across MPI processes: the worker program pimg-mpi-conv, built once at build time
// (mpicxx flags, OpenMP inside each rank) and started by the mpi backend under `mpirun -np RANKS`.
// Output rows are split into RANKS blocks; SCHEME says how each rank gets its input rows and halo:
//   scatter  every run: the root packs each rank's rows plus halo and MPI_Scatterv's them (seed 003)
//   halo     rows scattered once at set-up; every run: halo rows swapped with neighbours (MPI_Sendrecv)
//   owned    each rank reads its own rows at set-up (no root copy); every run: non-blocking halo
//            exchange overlapped with the interior rows, then the rows next to the halo
// and every scheme ends with an MPI_Gatherv of the output rows to rank 0. The arithmetic is
// conv_rule.h's, the rule the reference and every other variant follow.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "conv/conv_rule.h"
#include "mpi_serve.hpp"

namespace {

using pimg::mpi::PlanFile;
using pimg::mpi::RunTimes;

struct Conv {
  int width = 0, height = 0, out_width = 0, out_height = 0;
  int channels = 1, planar = 0, border = 0, k = 3, r = 1, divisor = 1;
  std::vector<int> weights;
  int planes = 1, step = 1, shift = 0;
  long row_bytes = 0, out_row_bytes = 0;  // one row of one plane
};

// Rank `rank`'s rows: output rows [o0, o1), owned input rows [own0, own1) (a partition of the
// image), and the input rows its outputs read [need0, need1) (owned rows plus halo).
struct Part {
  int o0 = 0, o1 = 0, own0 = 0, own1 = 0, need0 = 0, need1 = 0;
  int rows() const { return need1 - need0; }
};

Part part_of(const Conv& c, int rank, int ranks) {
  Part p;
  p.o0 = static_cast<int>(static_cast<long>(rank) * c.out_height / ranks);
  p.o1 = static_cast<int>(static_cast<long>(rank + 1) * c.out_height / ranks);
  p.own0 = rank == 0 ? 0 : p.o0 + c.shift;
  p.own1 = rank == ranks - 1 ? c.height : p.o1 + c.shift;
  p.need0 = std::max(0, p.o0 + c.shift - c.r);
  p.need1 = std::min(c.height, p.o1 + c.shift + c.r);
  return p;
}

Conv conv_of(const PlanFile& plan) {
  Conv c;
  if (plan.ints.size() != 4 || plan.buffers.size() != 3 || plan.buffers[0] != "in" || plan.buffers[1] != "out" ||
      plan.buffers[2] != "weights")
    throw std::runtime_error("plan arguments must be buffers in, out, weights and ints width, height, out_width, out_height");
  c.width = static_cast<int>(plan.ints[0]);
  c.height = static_cast<int>(plan.ints[1]);
  c.out_width = static_cast<int>(plan.ints[2]);
  c.out_height = static_cast<int>(plan.ints[3]);
  c.k = static_cast<int>(plan.int_define("PIMG_K"));
  c.r = c.k / 2;
  c.channels = static_cast<int>(plan.int_define("PIMG_CHANNELS"));
  c.planar = static_cast<int>(plan.int_define("PIMG_PLANAR"));
  c.border = static_cast<int>(plan.int_define("PIMG_BORDER"));
  c.divisor = static_cast<int>(plan.int_define("PIMG_DIVISOR"));
  if (c.width < 1 || c.height < 1 || c.out_width < 1 || c.out_height < 1 || c.k < 1 || c.k % 2 == 0 ||
      c.channels < 1 || c.divisor < 1 || c.border < PIMG_BORDER_ZERO || c.border > PIMG_BORDER_REPLICATE)
    throw std::runtime_error("the plan's problem is inconsistent");
  c.planes = c.planar ? c.channels : 1;
  c.step = c.planar ? 1 : c.channels;
  c.shift = c.border == PIMG_BORDER_VALID ? c.r : 0;
  c.row_bytes = static_cast<long>(c.width) * c.step;
  c.out_row_bytes = static_cast<long>(c.out_width) * c.step;
  FILE* f = std::fopen(plan.path("weights").c_str(), "rb");
  if (!f) throw std::runtime_error("cannot read " + plan.path("weights"));
  std::vector<std::int32_t> w(static_cast<std::size_t>(c.k) * c.k);
  const bool ok = std::fread(w.data(), sizeof(std::int32_t), w.size(), f) == w.size();
  std::fclose(f);
  if (!ok) throw std::runtime_error(plan.path("weights") + " holds fewer than K*K weights");
  c.weights.assign(w.begin(), w.end());
  return c;
}

// Output rows [a, b) of every plane from the rank's input rows (planes x p.rows() rows, starting
// at image row p.need0) into its output rows (planes x (p.o1 - p.o0) rows, starting at p.o0).
void conv_rows(const Conv& c, const Part& p, const std::uint8_t* in, std::uint8_t* out, int a, int b, int threads) {
  if (b <= a) return;
  const int n = b - a;
  // Columns whose window lies inside the image: no checks there.
  const int lo = std::min(std::max(0, c.r - c.shift), c.out_width);
  const int hi = std::max(lo, std::min(c.out_width, c.width - c.r - c.shift));
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int i = 0; i < c.planes * n; ++i) {
    const int plane = i / n, oy = a + i % n;
    const std::uint8_t* rows[64];  // k <= 63 (checked at set-up)
    for (int ky = 0; ky < c.k; ++ky) {
      int y = oy + c.shift + ky - c.r;
      if (y < 0 || y >= c.height) {
        if (c.border == PIMG_BORDER_ZERO) {
          rows[ky] = nullptr;
          continue;
        }
        y = pimg_clamp_int(y, 0, c.height - 1);
      }
      rows[ky] = in + (static_cast<long>(plane) * p.rows() + (y - p.need0)) * c.row_bytes;
    }
    std::uint8_t* dst = out + (static_cast<long>(plane) * (p.o1 - p.o0) + (oy - p.o0)) * c.out_row_bytes;
    auto checked = [&](int from, int to) {
      for (int ox = from; ox < to; ++ox)
        for (int ch = 0; ch < c.step; ++ch) {
          int acc = 0;
          for (int ky = 0; ky < c.k; ++ky) {
            if (!rows[ky]) continue;
            for (int kx = 0; kx < c.k; ++kx) {
              int x = ox + c.shift + kx - c.r;
              if (x < 0 || x >= c.width) {
                if (c.border == PIMG_BORDER_ZERO) continue;
                x = pimg_clamp_int(x, 0, c.width - 1);
              }
              acc += c.weights[ky * c.k + kx] * rows[ky][static_cast<long>(x) * c.step + ch];
            }
          }
          dst[static_cast<long>(ox) * c.step + ch] = static_cast<std::uint8_t>(pimg_conv_finish(acc, c.divisor));
        }
    };
    checked(0, lo);
    for (int j = lo * c.step; j < hi * c.step; ++j) {
      const int first = j + (c.shift - c.r) * c.step;  // the window's leftmost tap
      int acc = 0;
      for (int ky = 0; ky < c.k; ++ky) {
        if (!rows[ky]) continue;
        const std::uint8_t* src = rows[ky] + first;
        const int* w = &c.weights[ky * c.k];
        for (int kx = 0; kx < c.k; ++kx) acc += w[kx] * src[kx * c.step];
      }
      dst[j] = static_cast<std::uint8_t>(pimg_conv_finish(acc, c.divisor));
    }
    checked(hi, c.out_width);
  }
}

class ConvJob {
 public:
  ConvJob(const PlanFile& plan, Conv conv) : c_(std::move(conv)) {
    const pimg::mpi::Ranks r = pimg::mpi::read_ranks(plan, {"scatter", "halo", "owned"});
    rank_ = r.rank;
    ranks_ = r.ranks;
    threads_ = r.threads;
    scheme_ = r.scheme;
    if (c_.k > 63) throw std::runtime_error("filters larger than 63x63 are not supported");
    for (int i = 0; i < ranks_; ++i) parts_.push_back(part_of(c_, i, ranks_));
    for (int i = 0; i < ranks_; ++i) {
      const Part& p = parts_[i];
      if (p.o1 <= p.o0)
        throw std::runtime_error(std::to_string(ranks_) + " ranks leave rank " + std::to_string(i) +
                                 " without output rows (" + std::to_string(c_.out_height) + " rows)");
      // Halo rows come from the neighbours only: each must own at least the rows the other reads.
      if ((i > 0 && p.own0 - p.need0 > parts_[i - 1].own1 - parts_[i - 1].own0) ||
          (i + 1 < ranks_ && p.need1 - p.own1 > parts_[i + 1].own1 - parts_[i + 1].own0))
        throw std::runtime_error(std::to_string(ranks_) + " ranks give blocks thinner than the filter radius");
    }
    me_ = parts_[rank_];
    in_.assign(static_cast<std::size_t>(c_.planes) * me_.rows() * c_.row_bytes, pimg::mpi::kPoison);
    out_local_.resize(static_cast<std::size_t>(c_.planes) * (me_.o1 - me_.o0) * c_.out_row_bytes);
    if (rank_ == 0) out_.resize(static_cast<std::size_t>(c_.planes) * c_.out_height * c_.out_row_bytes);
    if (scheme_ != "owned" && rank_ == 0) read_rows(plan.path("in"), 0, c_.height, full_, 0);
    if (scheme_ == "halo") scatter_owned();
    if (scheme_ == "owned") read_rows(plan.path("in"), me_.own0, me_.own1, in_, me_.own0 - me_.need0);
  }

  void poison(std::uint8_t value) {
    std::fill(out_local_.begin(), out_local_.end(), value);
    std::fill(out_.begin(), out_.end(), value);
    if (scheme_ == "scatter") {
      std::fill(in_.begin(), in_.end(), value);
      return;
    }
    // Halo rows only: the owned rows are this rank's input, kept between runs like device memory.
    for (int plane = 0; plane < c_.planes; ++plane) {
      std::fill(row(in_, plane, me_.need0), row(in_, plane, me_.own0), value);
      std::fill(row(in_, plane, me_.own1), row(in_, plane, me_.need1), value);
    }
  }

  RunTimes run() {
    RunTimes t;
    pimg::mpi::Laps laps;
    auto lap = [&](double& into) { laps.lap(into); };
    if (scheme_ == "scatter") {
      scatter_with_halo();
      lap(t.comm);
      conv_rows(c_, me_, in_.data(), out_local_.data(), me_.o0, me_.o1, threads_);
      lap(t.comp);
    } else if (scheme_ == "halo") {
      exchange_blocking();
      lap(t.comm);
      conv_rows(c_, me_, in_.data(), out_local_.data(), me_.o0, me_.o1, threads_);
      lap(t.comp);
    } else {
      std::vector<MPI_Request> reqs = exchange_start();
      lap(t.comm);
      // Output rows whose window reads owned rows only (rows past the image's edge count as owned).
      const int a = me_.need0 == me_.own0 ? me_.o0 : std::clamp(me_.own0 + c_.r - c_.shift, me_.o0, me_.o1);
      const int b = me_.need1 == me_.own1 ? me_.o1 : std::clamp(me_.own1 - c_.r - c_.shift, a, me_.o1);
      conv_rows(c_, me_, in_.data(), out_local_.data(), a, b, threads_);
      lap(t.comp);
      MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
      lap(t.comm);
      conv_rows(c_, me_, in_.data(), out_local_.data(), me_.o0, a, threads_);
      conv_rows(c_, me_, in_.data(), out_local_.data(), b, me_.o1, threads_);
      lap(t.comp);
    }
    gather();
    lap(t.comm);
    t.total = laps.total();
    return t;
  }

  const std::vector<std::uint8_t>& output() const { return out_; }

 private:
  std::uint8_t* row(std::vector<std::uint8_t>& buf, int plane, int y) {
    return buf.data() + (static_cast<long>(plane) * me_.rows() + (y - me_.need0)) * c_.row_bytes;
  }

  // Rows [y0, y1) of every plane of the input file into buf, plane by plane, from row `at` of each
  // plane's block (blocks of me_.rows() rows in the rank buffer, of height rows in the full image).
  void read_rows(const std::string& path, int y0, int y1, std::vector<std::uint8_t>& buf, int at) {
    const bool whole = &buf == &full_;
    const long block_rows = whole ? c_.height : me_.rows();
    if (whole) buf.resize(static_cast<std::size_t>(c_.planes) * c_.height * c_.row_bytes);
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw std::runtime_error("cannot read " + path);
    bool ok = true;
    for (int plane = 0; plane < c_.planes && ok; ++plane) {
      const long from = (static_cast<long>(plane) * c_.height + y0) * c_.row_bytes;
      const std::size_t bytes = static_cast<std::size_t>(y1 - y0) * c_.row_bytes;
      ok = std::fseek(f, from, SEEK_SET) == 0 &&
           std::fread(buf.data() + (plane * block_rows + at) * c_.row_bytes, 1, bytes, f) == bytes;
    }
    std::fclose(f);
    if (!ok) throw std::runtime_error(path + " is shorter than the image");
  }

  // halo set-up: each rank's owned rows of each plane from the root's copy (no overlap).
  void scatter_owned() {
    std::vector<int> counts(ranks_), displs(ranks_);
    for (int plane = 0; plane < c_.planes; ++plane) {
      for (int i = 0; i < ranks_; ++i) {
        counts[i] = static_cast<int>((parts_[i].own1 - parts_[i].own0) * c_.row_bytes);
        displs[i] = static_cast<int>((static_cast<long>(plane) * c_.height + parts_[i].own0) * c_.row_bytes);
      }
      MPI_Scatterv(full_.data(), counts.data(), displs.data(), MPI_UINT8_T, row(in_, plane, me_.own0),
                   counts[rank_], MPI_UINT8_T, 0, MPI_COMM_WORLD);
    }
  }

  // scatter: the root packs every rank's rows plus halo (they overlap, and MPI forbids reading a
  // root location twice in one scatter), then one MPI_Scatterv of the packed blocks.
  void scatter_with_halo() {
    std::vector<int> counts(ranks_), displs(ranks_);
    long at = 0;
    for (int i = 0; i < ranks_; ++i) {
      counts[i] = static_cast<int>(c_.planes * parts_[i].rows() * c_.row_bytes);
      displs[i] = static_cast<int>(at);
      at += counts[i];
    }
    if (rank_ == 0) {
      packed_.resize(static_cast<std::size_t>(at));
      std::uint8_t* dst = packed_.data();
      for (int i = 0; i < ranks_; ++i)
        for (int plane = 0; plane < c_.planes; ++plane) {
          const long bytes = parts_[i].rows() * c_.row_bytes;
          std::copy_n(full_.data() + (static_cast<long>(plane) * c_.height + parts_[i].need0) * c_.row_bytes, bytes, dst);
          dst += bytes;
        }
    }
    MPI_Scatterv(packed_.data(), counts.data(), displs.data(), MPI_UINT8_T, in_.data(), counts[rank_], MPI_UINT8_T,
                 0, MPI_COMM_WORLD);
  }

  // The halo rows this rank sends its neighbours and receives from them, per plane:
  // up = to/from rank-1 (its bottom halo is my first owned rows), down = to/from rank+1.
  struct Halo {
    int up_peer, down_peer;
    int send_up_rows, recv_down_rows, send_down_rows, recv_up_rows;
  };
  Halo halo() const {
    Halo h{rank_ > 0 ? rank_ - 1 : MPI_PROC_NULL, rank_ + 1 < ranks_ ? rank_ + 1 : MPI_PROC_NULL, 0, 0, 0, 0};
    if (rank_ > 0) h.send_up_rows = parts_[rank_ - 1].need1 - parts_[rank_ - 1].own1;
    if (rank_ + 1 < ranks_) h.send_down_rows = parts_[rank_ + 1].own0 - parts_[rank_ + 1].need0;
    h.recv_down_rows = me_.need1 - me_.own1;
    h.recv_up_rows = me_.own0 - me_.need0;
    return h;
  }

  void exchange_blocking() {
    const Halo h = halo();
    const int rb = static_cast<int>(c_.row_bytes);
    for (int plane = 0; plane < c_.planes; ++plane) {
      MPI_Sendrecv(row(in_, plane, me_.own0), h.send_up_rows * rb, MPI_UINT8_T, h.up_peer, 0,
                   row(in_, plane, me_.own1), h.recv_down_rows * rb, MPI_UINT8_T, h.down_peer, 0, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      MPI_Sendrecv(row(in_, plane, me_.own1 - h.send_down_rows), h.send_down_rows * rb, MPI_UINT8_T, h.down_peer, 1,
                   row(in_, plane, me_.need0), h.recv_up_rows * rb, MPI_UINT8_T, h.up_peer, 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    }
  }

  std::vector<MPI_Request> exchange_start() {
    const Halo h = halo();
    const int rb = static_cast<int>(c_.row_bytes);
    std::vector<MPI_Request> reqs;
    auto add = [&](auto&& post) {
      reqs.emplace_back();
      post(&reqs.back());
    };
    for (int plane = 0; plane < c_.planes; ++plane) {
      if (h.recv_down_rows)
        add([&](MPI_Request* q) { MPI_Irecv(row(in_, plane, me_.own1), h.recv_down_rows * rb, MPI_UINT8_T, h.down_peer, 0, MPI_COMM_WORLD, q); });
      if (h.recv_up_rows)
        add([&](MPI_Request* q) { MPI_Irecv(row(in_, plane, me_.need0), h.recv_up_rows * rb, MPI_UINT8_T, h.up_peer, 1, MPI_COMM_WORLD, q); });
      if (h.send_up_rows)
        add([&](MPI_Request* q) { MPI_Isend(row(in_, plane, me_.own0), h.send_up_rows * rb, MPI_UINT8_T, h.up_peer, 0, MPI_COMM_WORLD, q); });
      if (h.send_down_rows)
        add([&](MPI_Request* q) {
          MPI_Isend(row(in_, plane, me_.own1 - h.send_down_rows), h.send_down_rows * rb, MPI_UINT8_T, h.down_peer, 1,
                    MPI_COMM_WORLD, q);
        });
    }
    return reqs;
  }

  // Every rank's output rows into rank 0's image, one MPI_Gatherv per plane.
  void gather() {
    std::vector<int> counts(ranks_), displs(ranks_);
    const long orb = c_.out_row_bytes;
    for (int plane = 0; plane < c_.planes; ++plane) {
      for (int i = 0; i < ranks_; ++i) {
        counts[i] = static_cast<int>((parts_[i].o1 - parts_[i].o0) * orb);
        displs[i] = static_cast<int>((static_cast<long>(plane) * c_.out_height + parts_[i].o0) * orb);
      }
      MPI_Gatherv(out_local_.data() + static_cast<long>(plane) * (me_.o1 - me_.o0) * orb, counts[rank_], MPI_UINT8_T,
                  out_.data(), counts.data(), displs.data(), MPI_UINT8_T, 0, MPI_COMM_WORLD);
    }
  }

  Conv c_;
  int rank_ = 0, ranks_ = 1, threads_ = 1;
  std::string scheme_;
  std::vector<Part> parts_;
  Part me_;
  std::vector<std::uint8_t> full_, packed_, in_, out_local_, out_;
};

}  // namespace

int main(int argc, char** argv) {
  return pimg::mpi::serve(argc, argv, [](const PlanFile& plan) {
    auto job = std::make_shared<ConvJob>(plan, conv_of(plan));
    return pimg::mpi::Job{[job](std::uint8_t value) { job->poison(value); }, [job] { return job->run(); },
                          [job]() -> const std::vector<std::uint8_t>& { return job->output(); }};
  });
}
