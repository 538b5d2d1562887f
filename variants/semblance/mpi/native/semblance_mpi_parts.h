// What the semblance MPI workers share (semblance_mpi.cpp, the OpenMP ranks; semblance_mpi_cuda.cpp, the
// GPU ranks): the problem a plan describes and its input files, the MAXLOC pair, the family's output header, rank 0's check that the reduced best point
// is the gathered grid's first maximum, and the gather of interleaved parts into place.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "mpi_serve.hpp"
#include "semblance/semblance_core.h"

namespace pimg::mpi {

constexpr int kSembHeaderBytes = SEMB_HEADER_FLOATS * 4;

// The problem a semblance plan describes: its defines (PIMG_NTR, PIMG_NS, PIMG_TAU, PIMG_W,
// PIMG_NA..PIMG_NE) and its reals t0, m0, h0, idt, checked for consistency.
struct SembPlan {
  int ntr = 0, ns = 0, tau = 0, w = 0;
  int n[5] = {};
  long points = 1, axis_values = 0;  // grid points; values in the axes buffer (the sum of n)
  float t0 = 0, m0 = 0, h0 = 0, idt = 0;
};

inline SembPlan semb_plan(const PlanFile& plan) {
  if (plan.reals.size() != 4) throw std::runtime_error("the plan's reals must be t0, m0, h0, idt");
  SembPlan s;
  s.ntr = static_cast<int>(plan.int_define("PIMG_NTR"));
  s.ns = static_cast<int>(plan.int_define("PIMG_NS"));
  s.tau = static_cast<int>(plan.int_define("PIMG_TAU"));
  s.w = static_cast<int>(plan.int_define("PIMG_W"));
  const char* dims[5] = {"PIMG_NA", "PIMG_NB", "PIMG_NC", "PIMG_ND", "PIMG_NE"};
  for (int d = 0; d < 5; ++d) {
    s.n[d] = static_cast<int>(plan.int_define(dims[d]));
    if (s.n[d] < 1) throw std::runtime_error(std::string(dims[d]) + " must be at least 1");
    s.points *= s.n[d];
    s.axis_values += s.n[d];
    if (s.points > (1L << 30)) throw std::runtime_error("the grid has more than 2^30 points");
  }
  if (s.ntr < 1 || s.tau < 0 || s.w != 2 * s.tau + 1 || s.ns < s.w + 2)
    throw std::runtime_error("the plan's problem is inconsistent (traces, samples, window)");
  s.t0 = static_cast<float>(plan.reals[0]);
  s.m0 = static_cast<float>(plan.reals[1]);
  s.h0 = static_cast<float>(plan.reals[2]);
  s.idt = static_cast<float>(plan.reals[3]);
  return s;
}

// The input file of `buffer` (dir/NAME.bin), which must hold exactly `count` values of type T.
template <class T>
std::vector<T> read_input(const PlanFile& plan, const std::string& buffer, std::size_t count) {
  std::vector<T> v(count);
  FILE* f = std::fopen(plan.path(buffer).c_str(), "rb");
  if (!f) throw std::runtime_error("cannot read " + plan.path(buffer));
  const bool ok = std::fread(v.data(), sizeof(T), count, f) == count && std::fgetc(f) == EOF;
  std::fclose(f);
  if (!ok)
    throw std::runtime_error(plan.path(buffer) + " does not hold " + std::to_string(count * sizeof(T)) + " bytes");
  return v;
}

// MPI_DOUBLE_INT's layout.
struct ValueIndex {
  double value;
  int index;
};

// The family's output header at out: tag, best index, its semblance and its stack.
inline void semb_header(std::uint8_t* out, std::int32_t tag, const ValueIndex& best, float stack) {
  const float sem = static_cast<float>(best.value);
  std::int32_t words[SEMB_HEADER_FLOATS] = {tag, best.index, 0, 0};
  std::memcpy(&words[2], &sem, 4);
  std::memcpy(&words[3], &stack, 4);
  std::memcpy(out, words, sizeof words);
}

// Rank 0, after a run that gathered the grid into out (header, then `points` semblance values):
// empty when the reduced best is the values' first maximum, else the discrepancy.
inline std::string semb_check_first_max(const ValueIndex& best, const std::uint8_t* out, long points) {
  auto value = [&](long i) {
    float v;
    std::memcpy(&v, out + kSembHeaderBytes + 4 * i, 4);
    return v;
  };
  long first = 0;
  for (long i = 1; i < points; ++i)
    if (value(i) > value(first)) first = i;
  if (best.index == first && best.value == static_cast<double>(value(first))) return {};
  char text[256];
  std::snprintf(text, sizeof text,
                "MPI_MAXLOC found point %d (semblance %.9g) but the gathered grid's first maximum is point %ld "
                "(semblance %.9g)",
                best.index, best.value, first, static_cast<double>(value(first)));
  return text;
}

// Contiguous parts: rank r owns counts[r] values of each array from firsts[r]; one MPI_Gatherv per
// array puts them in place in rank 0's grid[array].
inline void semb_gather_blocks(const float* const mine[2], const std::vector<long>& firsts,
                               const std::vector<long>& counts, int rank, float* const grid[2]) {
  std::vector<int> n(counts.begin(), counts.end()), at(firsts.begin(), firsts.end());
  for (int array = 0; array < 2; ++array)
    MPI_Gatherv(mine[array], n[rank], MPI_FLOAT, grid[array], n.data(), at.data(), MPI_FLOAT, 0, MPI_COMM_WORLD);
}

// Interleaved parts: rank r owns blocks r, r + ranks, r + 2 ranks, ... of `block` floats (blocks[r] of
// them) of each of the two arrays; every rank sends its own (mine[array], contiguous) and rank 0
// receives them into place in grid[array] through a strided datatype, so MPI places them and nothing
// is unpacked.
inline void semb_gather_interleaved(const float* const mine[2], const std::vector<long>& blocks, long block, int rank,
                                    float* const grid[2]) {
  const int ranks = static_cast<int>(blocks.size());
  std::vector<MPI_Request> reqs;
  std::vector<MPI_Datatype> types;
  if (rank == 0)
    for (int r = 0; r < ranks; ++r) {
      MPI_Datatype strided;
      MPI_Type_vector(static_cast<int>(blocks[r]), static_cast<int>(block), static_cast<int>(block * ranks), MPI_FLOAT,
                      &strided);
      MPI_Type_commit(&strided);
      types.push_back(strided);
      for (int array = 0; array < 2; ++array) {
        reqs.emplace_back();
        MPI_Irecv(grid[array] + r * block, 1, strided, r, array, MPI_COMM_WORLD, &reqs.back());
      }
    }
  for (int array = 0; array < 2; ++array) {
    reqs.emplace_back();
    MPI_Isend(mine[array], static_cast<int>(blocks[rank] * block), MPI_FLOAT, 0, array, MPI_COMM_WORLD, &reqs.back());
  }
  MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  for (MPI_Datatype& type : types) MPI_Type_free(&type);
}

}  // namespace pimg::mpi
