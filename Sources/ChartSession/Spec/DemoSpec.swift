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
        "legend": { "placement": "topLeft" },
        "modifiers": [
          { "type": "zoomPan", "direction": "xy" },
          { "type": "mouseWheelZoom", "direction": "x" },
          { "type": "zoomExtents" }
        ]
      }
    },
    {
      "id": "monitor",
      "title": "Plant monitor (two Y axes)",
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
        "legend": { "placement": "topRight" },
        "modifiers": [
          { "type": "zoomPan", "direction": "x" },
          { "type": "mouseWheelZoom", "direction": "x" },
          { "type": "zoomExtents" }
        ]
      }
    }
  ]
}
"""#
}
