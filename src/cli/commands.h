/* commands.h: every subcommand of the gpuest program (one file each: cmd_<name>.c). */
#ifndef GPUEST_COMMANDS_H
#define GPUEST_COMMANDS_H

int cli_cmd_config(int argc, char **argv);
int cli_config_import(int argc, char **argv); /* 'config import' (cmd_config_import.c) */
int cli_cmd_run(int argc, char **argv);
int cli_cmd_compress(int argc, char **argv);
int cli_cmd_workload(int argc, char **argv);
int cli_cmd_characterize(int argc, char **argv);
int cli_cmd_noc(int argc, char **argv);
int cli_cmd_simulate(int argc, char **argv);
int cli_cmd_approx(int argc, char **argv);
int cli_cmd_calibrate(int argc, char **argv);
int cli_cmd_sample(int argc, char **argv);
int cli_cmd_estimate(int argc, char **argv);
int cli_cmd_validate(int argc, char **argv);
int cli_cmd_sweep(int argc, char **argv);
int cli_cmd_results(int argc, char **argv);
int cli_cmd_plot(int argc, char **argv);
int cli_cmd_report(int argc, char **argv);
int cli_cmd_l1cfann(int argc, char **argv);

#endif
