/* Compiles Slurm's src/plugins/select/cons_tres/select_cons_tres.c into
 * select/topomatch, whose identity and init/fini are select_topomatch.c's:
 * - plugin_name, plugin_type, plugin_id and plugin_version become weak
 *   definitions here, so the strong ones of select_topomatch.c win
 *   everywhere, in this file's log lines too (which Slurm prefixes with
 *   plugin_type);
 * - init, fini and select_p_job_test are renamed cons_tres_init,
 *   cons_tres_fini and cons_tres_job_test, which select_topomatch.c's
 *   init, fini and select_p_job_test call.
 * See plugin/select/README.md. */
#pragma weak plugin_name
#pragma weak plugin_type
#pragma weak plugin_id
#pragma weak plugin_version
#define init cons_tres_init
#define fini cons_tres_fini
#define select_p_job_test cons_tres_job_test
#include "src/plugins/select/cons_tres/select_cons_tres.c"
