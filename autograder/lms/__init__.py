"""Grades into an LMS gradebook: a graded batch turned into Canvas', Moodle's or Blackboard's
import file, with the LMS's own gradebook export as the roster (the LMSs: ``registry.MODULES``)."""
