/* Compiles Slurm's src/plugins/select/cons_tres/select_cons_tres.c into
 * select/topomatch, whose identity and init/fini are select_topomatch.c's:
 * - plugin_name, plugin_type, plugin_id and plugin_version become weak
 *   definitions here, so the strong ones of select_topomatch.c win
 *   everywhere, in this file's log lines too (which Slurm prefixes with
 *   plugin_type);
 * - init and fini are renamed cons_tres_init and cons_tres_fini, which
 *   select_topomatch.c's init and fini call.
 * See plugin/select/README.md. */
#pragma weak plugin_name
#pragma weak plugin_type
#pragma weak plugin_id
#pragma weak plugin_version
#define init cons_tres_init
#define fini cons_tres_fini
#include "src/plugins/select/cons_tres/select_cons_tres.c"
