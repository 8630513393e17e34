"""Why a function lost points, as far as its answers and files tell: misconceptions, shapes, separating
conditions."""
