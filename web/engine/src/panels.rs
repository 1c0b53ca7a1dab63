//! What the page's side panels draw (the event log, the heatmap, the insights, the
//! inspector, the workload's fit), asked of one session at its cursor.
