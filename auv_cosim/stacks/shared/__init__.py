"""What both vehicles' stacks share: angle wraps, first-order lags, the PID law, seeded noise,
the laws compiled into the kernels, the parameter declarations."""
