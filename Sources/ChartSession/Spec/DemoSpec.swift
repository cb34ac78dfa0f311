/// The embedded default: the demo sessions `wsserver` hosts when started without
/// `--config`. The same text is `examples/demo.json` (a test keeps them equal).
public enum DemoSpec {
    public static let json = #"""
{
  "sessions": [
    {
      "id": "demo",
      "title": "Live signals",
      "chart": {
        "title": "Live signals",
        "xAxes": [
          { "id": "time", "alignment": "bottom", "title": "Time (s)", "mode": "follow", "window": 20 }
        ],
        "yAxes": [
          { "id": "value", "alignment": "left", "title": "Value", "mode": "visible", "growBy": [0.1, 0.1] }
        ],
        "series": [
          { "id": "sine", "name": "Sine", "color": "#1f77b4", "strokeWidth": 1.5, "capacity": 500000,
            "generator": { "kind": "sine", "rate": 50, "amplitude": 1, "period": 4 } },
          { "id": "walk", "name": "Random walk", "color": "#d62728", "strokeWidth": 1.5, "capacity": 500000,
            "generator": { "kind": "randomWalk", "rate": 50, "amplitude": 1.5, "noise": 0.08, "seed": 7 } },
          { "id": "saw", "name": "Sawtooth", "color": "#2ca02c", "strokeWidth": 1.5, "capacity": 500000,
            "generator": { "kind": "sawtooth", "rate": 50, "amplitude": 0.5, "period": 2.5, "offset": -1.8 } }
        ],
        "legend": { "position": "topLeft" },
        "modifiers": [
          { "type": "zoomPan", "direction": "xy" },
          { "type": "mouseWheelZoom", "direction": "x" },
          { "type": "zoomExtents" },
          { "type": "presence" }
        ]
      }
    },
    {
      "id": "monitor",
      "title": "Plant monitor (two Y axes)",
      "access": { "anonymous": "viewer" },
      "chart": {
        "title": "Plant monitor",
        "xAxes": [
          { "id": "time", "alignment": "bottom", "title": "Time (UTC)", "type": "time", "mode": "follow", "window": 60 }
        ],
        "yAxes": [
          { "id": "temp", "alignment": "left", "title": "Temperature (°C)", "mode": "visible" },
          { "id": "pressure", "alignment": "right", "title": "Pressure (kPa)", "mode": "visible" }
        ],
        "series": [
          { "id": "temp", "name": "Temperature", "color": "#ff7f0e", "yAxis": "temp", "capacity": 500000,
            "generator": { "kind": "sine", "rate": 20, "amplitude": 3, "period": 30, "offset": 21, "noise": 0.3, "seed": 3, "time": "unix" } },
          { "id": "pressure", "name": "Pressure", "color": "#9467bd", "yAxis": "pressure", "capacity": 500000,
            "generator": { "kind": "randomWalk", "rate": 20, "amplitude": 2, "offset": 101.3, "seed": 11, "time": "unix" } }
        ],
        "legend": { "position": "topRight" },
        "modifiers": [
          { "type": "zoomPan", "direction": "x" },
          { "type": "mouseWheelZoom", "direction": "x" },
          { "type": "zoomExtents" }
        ]
      }
    },
    {
      "id": "axes",
      "title": "Shifted axes (axes inside the plot, pinned at 0)",
      "access": { "anonymous": "viewer", "controllerTokens": ["demo-controller"] },
      "chart": {
        "title": "Shifted axes",
        "xAxes": [
          { "id": "x", "alignment": "top", "isCenterAxis": true, "axisPositionValue": 0, "mode": "fixed", "range": [-10, 10],
            "minorTicks": "auto", "bands": true }
        ],
        "yAxes": [
          { "id": "y", "alignment": "right", "isCenterAxis": true, "axisPositionValue": 0, "mode": "fixed", "range": [-4, 4],
            "minorTicks": 4, "minorGridLines": true }
        ],
        "series": [
          { "id": "sine", "name": "2 sin x", "color": "#1f77b4",
            "data": { "x": [-10, -9.9, -9.8, -9.7, -9.6, -9.5, -9.4, -9.3, -9.2, -9.1, -9, -8.9, -8.8, -8.7, -8.6, -8.5, -8.4, -8.3, -8.2, -8.1, -8, -7.9, -7.8, -7.7, -7.6, -7.5, -7.4, -7.3, -7.2, -7.1, -7, -6.9, -6.8, -6.7, -6.6, -6.5, -6.4, -6.3, -6.2, -6.1, -6, -5.9, -5.8, -5.7, -5.6, -5.5, -5.4, -5.3, -5.2, -5.1, -5, -4.9, -4.8, -4.7, -4.6, -4.5, -4.4, -4.3, -4.2, -4.1, -4, -3.9, -3.8, -3.7, -3.6, -3.5, -3.4, -3.3, -3.2, -3.1, -3, -2.9, -2.8, -2.7, -2.6, -2.5, -2.4, -2.3, -2.2, -2.1, -2, -1.9, -1.8, -1.7, -1.6, -1.5, -1.4, -1.3, -1.2, -1.1, -1, -0.9, -0.8, -0.7, -0.6, -0.5, -0.4, -0.3, -0.2, -0.1, 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7, 2.8, 2.9, 3, 3.1, 3.2, 3.3, 3.4, 3.5, 3.6, 3.7, 3.8, 3.9, 4, 4.1, 4.2, 4.3, 4.4, 4.5, 4.6, 4.7, 4.8, 4.9, 5, 5.1, 5.2, 5.3, 5.4, 5.5, 5.6, 5.7, 5.8, 5.9, 6, 6.1, 6.2, 6.3, 6.4, 6.5, 6.6, 6.7, 6.8, 6.9, 7, 7.1, 7.2, 7.3, 7.4, 7.5, 7.6, 7.7, 7.8, 7.9, 8, 8.1, 8.2, 8.3, 8.4, 8.5, 8.6, 8.7, 8.8, 8.9, 9, 9.1, 9.2, 9.3, 9.4, 9.5, 9.6, 9.7, 9.8, 9.9, 10],
                      "y": [1.088, 0.915, 0.733, 0.544, 0.349, 0.15, -0.05, -0.249, -0.446, -0.638, -0.824, -1.002, -1.17, -1.326, -1.469, -1.597, -1.709, -1.804, -1.881, -1.94, -1.979, -1.998, -1.997, -1.976, -1.936, -1.876, -1.797, -1.701, -1.587, -1.458, -1.314, -1.157, -0.988, -0.81, -0.623, -0.43, -0.233, -0.034, 0.166, 0.364, 0.559, 0.748, 0.929, 1.101, 1.263, 1.411, 1.546, 1.665, 1.767, 1.852, 1.918, 1.965, 1.992, 2, 1.987, 1.955, 1.903, 1.832, 1.743, 1.637, 1.514, 1.376, 1.224, 1.06, 0.885, 0.702, 0.511, 0.315, 0.117, -0.083, -0.282, -0.478, -0.67, -0.855, -1.031, -1.197, -1.351, -1.491, -1.617, -1.726, -1.819, -1.893, -1.948, -1.983, -1.999, -1.995, -1.971, -1.927, -1.864, -1.782, -1.683, -1.567, -1.435, -1.288, -1.129, -0.959, -0.779, -0.591, -0.397, -0.2, 0, 0.2, 0.397, 0.591, 0.779, 0.959, 1.129, 1.288, 1.435, 1.567, 1.683, 1.782, 1.864, 1.927, 1.971, 1.995, 1.999, 1.983, 1.948, 1.893, 1.819, 1.726, 1.617, 1.491, 1.351, 1.197, 1.031, 0.855, 0.67, 0.478, 0.282, 0.083, -0.117, -0.315, -0.511, -0.702, -0.885, -1.06, -1.224, -1.376, -1.514, -1.637, -1.743, -1.832, -1.903, -1.955, -1.987, -2, -1.992, -1.965, -1.918, -1.852, -1.767, -1.665, -1.546, -1.411, -1.263, -1.101, -0.929, -0.748, -0.559, -0.364, -0.166, 0.034, 0.233, 0.43, 0.623, 0.81, 0.988, 1.157, 1.314, 1.458, 1.587, 1.701, 1.797, 1.876, 1.936, 1.976, 1.997, 1.998, 1.979, 1.94, 1.881, 1.804, 1.709, 1.597, 1.469, 1.326, 1.17, 1.002, 0.824, 0.638, 0.446, 0.249, 0.05, -0.15, -0.349, -0.544, -0.733, -0.915, -1.088] } },
          { "id": "damped", "name": "Damped cosine", "color": "#d62728",
            "data": { "x": [-10, -9.9, -9.8, -9.7, -9.6, -9.5, -9.4, -9.3, -9.2, -9.1, -9, -8.9, -8.8, -8.7, -8.6, -8.5, -8.4, -8.3, -8.2, -8.1, -8, -7.9, -7.8, -7.7, -7.6, -7.5, -7.4, -7.3, -7.2, -7.1, -7, -6.9, -6.8, -6.7, -6.6, -6.5, -6.4, -6.3, -6.2, -6.1, -6, -5.9, -5.8, -5.7, -5.6, -5.5, -5.4, -5.3, -5.2, -5.1, -5, -4.9, -4.8, -4.7, -4.6, -4.5, -4.4, -4.3, -4.2, -4.1, -4, -3.9, -3.8, -3.7, -3.6, -3.5, -3.4, -3.3, -3.2, -3.1, -3, -2.9, -2.8, -2.7, -2.6, -2.5, -2.4, -2.3, -2.2, -2.1, -2, -1.9, -1.8, -1.7, -1.6, -1.5, -1.4, -1.3, -1.2, -1.1, -1, -0.9, -0.8, -0.7, -0.6, -0.5, -0.4, -0.3, -0.2, -0.1, 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7, 2.8, 2.9, 3, 3.1, 3.2, 3.3, 3.4, 3.5, 3.6, 3.7, 3.8, 3.9, 4, 4.1, 4.2, 4.3, 4.4, 4.5, 4.6, 4.7, 4.8, 4.9, 5, 5.1, 5.2, 5.3, 5.4, 5.5, 5.6, 5.7, 5.8, 5.9, 6, 6.1, 6.2, 6.3, 6.4, 6.5, 6.6, 6.7, 6.8, 6.9, 7, 7.1, 7.2, 7.3, 7.4, 7.5, 7.6, 7.7, 7.8, 7.9, 8, 8.1, 8.2, 8.3, 8.4, 8.5, 8.6, 8.7, 8.8, 8.9, 9, 9.1, 9.2, 9.3, 9.4, 9.5, 9.6, 9.7, 9.8, 9.9, 10],
                      "y": [0.514, 0.55, 0.577, 0.595, 0.603, 0.602, 0.589, 0.566, 0.532, 0.488, 0.433, 0.37, 0.298, 0.218, 0.131, 0.04, -0.056, -0.154, -0.252, -0.349, -0.444, -0.534, -0.617, -0.693, -0.759, -0.814, -0.857, -0.887, -0.902, -0.901, -0.885, -0.853, -0.805, -0.742, -0.663, -0.57, -0.464, -0.346, -0.218, -0.082, 0.06, 0.205, 0.352, 0.498, 0.641, 0.776, 0.903, 1.019, 1.12, 1.206, 1.273, 1.321, 1.347, 1.35, 1.33, 1.286, 1.218, 1.127, 1.013, 0.877, 0.722, 0.548, 0.359, 0.158, -0.053, -0.271, -0.491, -0.71, -0.923, -1.129, -1.321, -1.497, -1.652, -1.785, -1.89, -1.966, -2.01, -2.021, -1.997, -1.938, -1.842, -1.711, -1.546, -1.348, -1.12, -0.865, -0.586, -0.287, 0.027, 0.35, 0.679, 1.007, 1.329, 1.638, 1.93, 2.197, 2.436, 2.639, 2.804, 2.926, 3, 2.926, 2.804, 2.639, 2.436, 2.197, 1.93, 1.638, 1.329, 1.007, 0.679, 0.35, 0.027, -0.287, -0.586, -0.865, -1.12, -1.348, -1.546, -1.711, -1.842, -1.938, -1.997, -2.021, -2.01, -1.966, -1.89, -1.785, -1.652, -1.497, -1.321, -1.129, -0.923, -0.71, -0.491, -0.271, -0.053, 0.158, 0.359, 0.548, 0.722, 0.877, 1.013, 1.127, 1.218, 1.286, 1.33, 1.35, 1.347, 1.321, 1.273, 1.206, 1.12, 1.019, 0.903, 0.776, 0.641, 0.498, 0.352, 0.205, 0.06, -0.082, -0.218, -0.346, -0.464, -0.57, -0.663, -0.742, -0.805, -0.853, -0.885, -0.901, -0.902, -0.887, -0.857, -0.814, -0.759, -0.693, -0.617, -0.534, -0.444, -0.349, -0.252, -0.154, -0.056, 0.04, 0.131, 0.218, 0.298, 0.37, 0.433, 0.488, 0.532, 0.566, 0.589, 0.602, 0.603, 0.595, 0.577, 0.55, 0.514] } }
        ],
        "legend": { "position": "topLeft" },
        "modifiers": [
          { "type": "zoomPan", "direction": "xy" },
          { "type": "mouseWheelZoom", "direction": "x" },
          { "type": "zoomExtents" }
        ]
      }
    },
    {
      "id": "servers",
      "title": "Server load (independent views: each viewer zooms alone)",
      "viewMode": "independent",
      "eventGroup": "ops",
      "lineProtocol": { "unknown": "create" },
      "chart": {
        "title": "Server load",
        "xAxes": [
          { "id": "time", "alignment": "bottom", "type": "time", "mode": "follow", "window": 120 }
        ],
        "yAxes": [
          { "id": "pct", "alignment": "left", "title": "CPU (%)", "mode": "visible", "growBy": [0.1, 0.1] }
        ],
        "series": [
          { "id": "web", "name": "web-01", "color": "#1f5fb4", "capacity": 200000,
            "generator": { "kind": "randomWalk", "rate": 10, "amplitude": 12, "offset": 45, "noise": 2, "seed": 21, "time": "unix" } },
          { "id": "db", "name": "db-01", "color": "#b3261e", "capacity": 200000,
            "generator": { "kind": "sine", "rate": 10, "amplitude": 15, "period": 40, "offset": 60, "noise": 3, "seed": 5, "time": "unix" } }
        ],
        "legend": { "position": "topLeft" },
        "modifiers": [
          { "type": "zoomPan", "direction": "x" },
          { "type": "mouseWheelZoom", "direction": "x" },
          { "type": "zoomExtents" },
          { "type": "rollover" },
          { "type": "legend" }
        ]
      }
    },
    {
      "id": "queue",
      "title": "Queue depth",
      "eventGroup": "ops",
      "chart": {
        "title": "Queue depth",
        "xAxes": [
          { "id": "time", "alignment": "bottom", "type": "time", "mode": "follow", "window": 60 }
        ],
        "yAxes": [
          { "id": "jobs", "alignment": "left", "title": "Jobs", "mode": "visible", "growBy": [0, 0.1] }
        ],
        "series": [
          { "id": "jobs", "name": "Jobs waiting", "type": "column", "color": "#2ca02c", "capacity": 100000,
            "generator": { "kind": "randomWalk", "rate": 2, "amplitude": 20, "offset": 30, "noise": 4, "seed": 9, "time": "unix" } }
        ],
        "modifiers": [
          { "type": "rollover" }
        ]
      }
    }
  ],
  "dashboards": [
    {
      "id": "ops",
      "title": "Operations (four live charts, one connection)",
      "columns": 2,
      "rowHeight": 300,
      "charts": [
        { "session": "servers", "columnSpan": 2 },
        { "session": "monitor" },
        { "session": "queue" },
        { "session": "demo", "columnSpan": 2 }
      ]
    }
  ]
}
"""#
}
