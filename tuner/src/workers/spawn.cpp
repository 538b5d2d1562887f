// spawn.hpp.
#include "workers/spawn.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace pimg {

pid_t spawn_pimg(const std::string& exe, const char* verb, int in, int out, int err) {
  const char* path = exe.c_str();  // read before the fork: only async-signal-safe calls in the child until exec
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::dup2(in, 0);
  ::dup2(out, 1);
  ::dup2(err, 2);
  ::syscall(SYS_close_range, 3u, ~0u, 0u);
  ::signal(SIGPIPE, SIG_DFL);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a tuner killed with -9 takes it along
  if (::getppid() != parent) ::_exit(1);
  ::execl(path, path, verb, static_cast<char*>(nullptr));
  ::_exit(127);
}

}  // namespace pimg
