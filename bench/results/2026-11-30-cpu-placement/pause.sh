# source me: pause_helpers / resume_helpers — SIGSTOP/SIGCONT every process whose cwd is in a helper worktree
pause_helpers() { for p in /proc/[0-9]*; do c=$(readlink $p/cwd 2>/dev/null) || continue; case $c in /work/wt-*) kill -STOP ${p#/proc/} 2>/dev/null;; esac; done; }
resume_helpers() { for p in /proc/[0-9]*; do c=$(readlink $p/cwd 2>/dev/null) || continue; case $c in /work/wt-*) kill -CONT ${p#/proc/} 2>/dev/null;; esac; done; }
