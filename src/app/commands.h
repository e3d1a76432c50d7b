#ifndef KB_APP_COMMANDS_H
#define KB_APP_COMMANDS_H

/* Each subcommand takes the arguments after its name (argv[0] is the command's name) and
 * returns the process exit status (kb_exit_status, app/usage.h). What it prints on stdout is
 * checked once, by the dispatcher. */
int kb_cmd_info(int argc, char **argv);
int kb_cmd_npy(int argc, char **argv);
int kb_cmd_eval(int argc, char **argv);
int kb_cmd_run(int argc, char **argv);
int kb_cmd_list(int argc, char **argv);
int kb_cmd_peaks(int argc, char **argv);
int kb_cmd_compare(int argc, char **argv);
int kb_cmd_merge(int argc, char **argv);
int kb_cmd_serve(int argc, char **argv);
int kb_cmd_detect(int argc, char **argv);
int kb_cmd_trace(int argc, char **argv);
int kb_cmd_history(int argc, char **argv);
int kb_cmd_report(int argc, char **argv);

#endif
