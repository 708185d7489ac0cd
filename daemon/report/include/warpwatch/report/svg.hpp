// Charts as inline SVG, for the self-contained HTML reports of `warpwatch learn` and
// `warpwatch backtest` (and the operators' console): lines, shaded spans, rules, histograms.
// No I/O; the text drawn is escaped.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace warpwatch::report {

struct Series {              // one line
  std::string name;          // in the legend ("" = not listed)
  std::vector<double> x, y;  // equal sizes; a non-finite y breaks the line
  std::string color;         // "" = the palette's next
  bool dashed = false;
  double opacity = 1.0, width = 1.5;
};

struct Span {  // a shaded range of x, labelled at its top
  double from = 0, to = 0;
  std::string label;
  std::string color;  // "" = red
};

struct Rule {  // a line across the plot: at an x (vertical) or at a y (horizontal, a threshold)
  double at = 0;
  std::string label;
  bool vertical = true;
  std::string color;  // "" = dark grey
};

struct Segment {  // a straight line between two points of the plot (an alignment's pair)
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
  std::string color;  // "" = grey
  double opacity = 0.6, width = 0.8;
};

struct Chart {
  std::string title, x_label, y_label;
  std::vector<Series> series;
  std::vector<Span> spans;
  std::vector<Rule> rules;
  bool log_y = false;  // y on a log10 axis: values <= 0 are left out
  int width = 760, height = 280;
  std::vector<Segment> segments = {};  // drawn under the lines, each <line class="segment">
};

// One <svg> element: the axes with ticks, the spans, the segments, the lines, the rules and a
// legend.
// A chart with nothing finite to draw still gives its frame and title ("no data").
std::string svg(const Chart& chart);

struct Distribution {
  std::string name;
  std::vector<double> values;  // non-finite values are left out
  std::string color;
};

// The sets binned on bins shared by all of them (x: value, y: count), each drawn as a step
// line; `bins` >= 1.
Chart histogram(std::string title, std::string x_label, std::vector<Distribution> sets,
                std::size_t bins = 40);

// A long series thinned to at most max_points (>= 3): its samples in equal buckets, each
// bucket's smallest and largest kept in their order, so that peaks survive.
Series thinned(Series s, std::size_t max_points);

}  // namespace warpwatch::report
