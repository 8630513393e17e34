"""What the platforms' graders share: grading one submission once (``oneshot``), what a grader ships
(``shipment``), what the machine allows (``doctor``)."""
