"""Parameter identification from trial logs (plain Python; no FMI, no master).

    from identification import read_log, vehicle_adapter, identify
    adapter = vehicle_adapter("auv")
    log = read_log("results/ident_auv/results.csv", adapter)
    fit = identify(log, adapter, ["AxialDragCoeff", "CrossFlowDragCoeff"])
    fit.estimates["AxialDragCoeff"]          # (value, standard error)

The fit is an output-error (prediction-error) fit with lmfit: the vehicle library is simulated
over the logged commands (held over each logged interval, as the master holds them) from the
logged initial state, and the parameters (and, as nuisance, the few initial-state values the
first noisy sample cannot give exactly) are adjusted until the predicted outputs match the
measured ones, each channel weighted by its own noise level estimated from the log.
`auv-cosim identify` is the command line (auv_cosim/identification/cli.py).

Each vehicle's adapter lives in its unit's folder and comes through the registry (auv_cosim/units.py);
the vehicle libraries are imported only when a fit runs.
"""
from .log import TrialLog, LogError, read_log
from .vehicles import VehicleAdapter, vehicle_adapter, vehicle_names
from .fit import FitResult, identify, predict, rms_position_error
from .trials import excitation, library_trial

__all__ = ["TrialLog", "LogError", "read_log", "VehicleAdapter", "vehicle_adapter", "vehicle_names",
           "FitResult", "identify", "predict", "rms_position_error", "excitation", "library_trial"]
