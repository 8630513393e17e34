"""What every lab is written with, and all the engine knows of one: the kinds of check, a graded
function's record, a case. A lab (``lab/`` is Lab 05's; ``docs/LABS.md`` says what a lab
provides) imports these; the engine reads a lab only through them and the lab's own modules."""
