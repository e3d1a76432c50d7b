#ifndef KB_KERNELS_REDUCE_FINISH_H
#define KB_KERNELS_REDUCE_FINISH_H

#include "kernels/reduce_partial.h"
#include "kernels/reduce_plan.h"

/* Turns an output's merged partial into its value and stores it at out in the plan's
 * output dtype (means divide, var and std divide by count - ddof). */
kb_status kb_reduce_store(const kb_reduce_plan *plan, const kb_partial *partial, char *out);

/* What var and std divide the squared deviations by: NumPy's max(count - ddof, 0), whose zero
 * gives inf or NaN, as there. */
double kb_reduce_dof(const kb_reduce_plan *plan);

#endif
