// The command line of a tuning run as stored and said again: the arguments joined (join_args), the command that
// resumes an interrupted run (resume_command), and the note a signal prints on its way out.
#pragma once
#include <string>

namespace pimg::cli {

// The arguments as one line, space-separated (the run's command line in the store).
std::string join_args(int argc, char** argv);

// The command that resumes an interrupted run: the same arguments, shell-quoted, without
// --no-resume (which would measure everything again).
std::string resume_command(int argc, char** argv);

// Ctrl-C (SIGINT), SIGTERM or SIGHUP during a tuning run: every evaluation is stored in a transaction of its own,
// so what was measured is kept. The handler says so and how to resume, then ends the process as the signal
// does (its status tells a shell it was interrupted). The note is written before the handler is installed.
void say_how_to_resume_when_interrupted(int argc, char** argv);

}  // namespace pimg::cli
