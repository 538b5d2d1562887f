// Starting a pimg-tune process of the tuner's own (`exe verb`: the worker, a compile worker) on given descriptors.
#pragma once
#include <sys/types.h>

#include <string>

namespace pimg {

// Forks and execs `exe verb` with `in`, `out` and `err` as its standard descriptors and every other one closed; the
// child is killed with the thread that started it (PR_SET_PDEATHSIG), and exits 127 when exec fails. Returns its pid,
// or -1 (errno set) when the fork failed. The caller closes its copies of the child's ends.
pid_t spawn_pimg(const std::string& exe, const char* verb, int in, int out, int err);

}  // namespace pimg
