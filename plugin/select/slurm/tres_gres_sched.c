/* Compiles Slurm's src/plugins/select/cons_tres/gres_sched.c, from the configured source
 * tree of the installed version (configure --with-slurm-source), into
 * select/topomatch; see plugin/select/README.md. */
#include "src/plugins/select/cons_tres/gres_sched.c"
