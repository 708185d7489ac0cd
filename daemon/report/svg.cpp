// Charts as inline SVG (svg.hpp): a frame, ticks at round numbers, shaded spans, lines,
// rules and a legend. Coordinates are written with one decimal: a pixel's tenth is plenty.
#include "warpwatch/report/svg.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include "append.hpp"
#include "warpwatch/report/html.hpp"

namespace warpwatch::report {
namespace {

constexpr std::array<std::string_view, 8> kPalette = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                                      "#9467bd", "#8c564b", "#e377c2", "#17becf"};
constexpr std::string_view kSpanColor = "#e4572e";
constexpr std::string_view kRuleColor = "#444444";
constexpr std::string_view kSegmentColor = "#888888";
// The title's line, then the legend's, above the plot.
constexpr double kLeft = 64, kRight = 16, kTop = 42, kBottom = 42, kTitleY = 15, kLegendY = 32;

std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return lo > hi; }
  // A range of one value, or none, is widened so that it has a length to divide.
  void settle() {
    if (empty()) lo = 0, hi = 1;
    if (lo == hi) {
      const double pad = lo == 0 ? 1.0 : std::abs(lo) * 0.05;
      lo -= pad, hi += pad;
    }
  }
};

// Round tick values covering [lo, hi]: 1, 2 or 5 times a power of ten apart, about `target`.
std::vector<double> ticks(double lo, double hi, int target) {
  const double raw = (hi - lo) / target;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (const double f : {1.0, 2.0, 5.0, 10.0})
    if (raw <= f * power) {
      step = f * power;
      break;
    }
  std::vector<double> out;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9 && out.size() < 50; t += step)
    out.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  return out;
}

class Canvas {
 public:
  Canvas(const Chart& c, Range x, Range y)
      : c_(c), x_(x), y_(y), w_(c.width - kLeft - kRight), h_(c.height - kTop - kBottom) {}
  double sx(double v) const { return kLeft + (v - x_.lo) / (x_.hi - x_.lo) * w_; }
  double sy(double v) const {
    const double u = c_.log_y ? std::log10(v) : v;
    return kTop + h_ - (u - y_.lo) / (y_.hi - y_.lo) * h_;
  }
  bool y_drawable(double v) const { return std::isfinite(v) && (!c_.log_y || v > 0); }
  double left() const { return kLeft; }
  double right() const { return kLeft + w_; }
  double top() const { return kTop; }
  double bottom() const { return kTop + h_; }
  const Range& x() const { return x_; }
  const Range& y() const { return y_; }  // log10 units under log_y

 private:
  const Chart& c_;
  Range x_, y_;
  double w_, h_;
};

void text(std::string& out, double x, double y, std::string_view s, std::string_view anchor,
          std::string_view extra = {}) {
  append(out, "<text x=\"", px(x), "\" y=\"", px(y), "\" text-anchor=\"", anchor, "\"", extra, ">",
         escape(s), "</text>");
}

void axes(std::string& out, const Chart& c, const Canvas& k) {
  append(out, "<rect x=\"", px(k.left()), "\" y=\"", px(k.top()), "\" width=\"",
         px(k.right() - k.left()), "\" height=\"", px(k.bottom() - k.top()),
         "\" fill=\"#fff\" stroke=\"#999\"/>");
  for (const double t : ticks(k.x().lo, k.x().hi, 6)) {
    const double x = k.sx(t);
    append(out, "<line x1=\"", px(x), "\" y1=\"", px(k.bottom()), "\" x2=\"", px(x), "\" y2=\"",
           px(k.bottom() + 4), "\" stroke=\"#999\"/>");
    text(out, x, k.bottom() + 16, number(t), "middle");
  }
  for (const double t : ticks(k.y().lo, k.y().hi, 4)) {
    const double v = c.log_y ? std::pow(10.0, t) : t;
    const double y = k.sy(v);
    append(out, "<line x1=\"", px(k.left()), "\" y1=\"", px(y), "\" x2=\"", px(k.right()),
           "\" y2=\"", px(y), "\" stroke=\"#eee\"/>");
    text(out, k.left() - 6, y + 4, number(v), "end");
  }
  text(out, (k.left() + k.right()) / 2, kTitleY, c.title, "middle", " font-weight=\"bold\"");
  text(out, (k.left() + k.right()) / 2, c.height - 6, c.x_label, "middle");
  const double mid = (k.top() + k.bottom()) / 2;
  std::string turn;
  append(turn, " transform=\"rotate(-90 14 ", px(mid), ")\"");
  text(out, 14, mid, c.y_label, "middle", turn);
}

void spans(std::string& out, const Chart& c, const Canvas& k) {
  for (const Span& s : c.spans) {
    const double a = std::clamp(k.sx(std::min(s.from, s.to)), k.left(), k.right());
    const double b = std::clamp(k.sx(std::max(s.from, s.to)), k.left(), k.right());
    const std::string color = s.color.empty() ? std::string(kSpanColor) : s.color;
    append(out, "<rect x=\"", px(a), "\" y=\"", px(k.top()), "\" width=\"",
           px(std::max(b - a, 1.0)), "\" height=\"", px(k.bottom() - k.top()), "\" fill=\"",
           escape(color), "\" fill-opacity=\"0.18\"><title>", escape(s.label), "</title></rect>");
    if (!s.label.empty()) text(out, a + 2, k.top() + 11, s.label, "start", " font-size=\"10\"");
  }
}

void lines(std::string& out, const Chart& c, const Canvas& k,
           std::vector<std::pair<std::string, std::string>>& legend) {
  std::size_t next = 0;
  for (const Series& s : c.series) {
    const std::string color =
        s.color.empty() ? std::string(kPalette[next++ % kPalette.size()]) : s.color;
    std::string d;
    bool open = false;
    for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (!std::isfinite(s.x[i]) || !k.y_drawable(s.y[i])) {
        open = false;
        continue;
      }
      append(d, (open ? "L" : "M"), px(k.sx(s.x[i])), " ", px(k.sy(s.y[i])));
      open = true;
    }
    if (!d.empty())
      append(out, "<path d=\"", d, "\" fill=\"none\" stroke=\"", escape(color),
             "\" stroke-width=\"", px(s.width), "\" stroke-opacity=\"", px(s.opacity), "\"",
             (s.dashed ? " stroke-dasharray=\"5 3\"" : ""), "/>");
    if (!s.name.empty()) legend.emplace_back(s.name, color);
  }
}

void segments(std::string& out, const Chart& c, const Canvas& k) {
  for (const Segment& s : c.segments) {
    if (!std::isfinite(s.x1) || !std::isfinite(s.x2) || !k.y_drawable(s.y1) || !k.y_drawable(s.y2))
      continue;
    const std::string color = s.color.empty() ? std::string(kSegmentColor) : s.color;
    append(out, "<line class=\"segment\" x1=\"", px(k.sx(s.x1)), "\" y1=\"", px(k.sy(s.y1)),
           "\" x2=\"", px(k.sx(s.x2)), "\" y2=\"", px(k.sy(s.y2)), "\" stroke=\"", escape(color),
           "\" stroke-width=\"", px(s.width), "\" stroke-opacity=\"", px(s.opacity), "\"/>");
  }
}

void rules(std::string& out, const Chart& c, const Canvas& k) {
  for (const Rule& r : c.rules) {
    const std::string color = r.color.empty() ? std::string(kRuleColor) : r.color;
    std::string stroke;
    append(stroke, "\" stroke=\"", escape(color),
           "\" stroke-width=\"1.2\" stroke-dasharray=\"6 3\"/>");
    if (r.vertical) {
      const double x = k.sx(r.at);
      if (x < k.left() || x > k.right()) continue;
      append(out, "<line x1=\"", px(x), "\" y1=\"", px(k.top()), "\" x2=\"", px(x), "\" y2=\"",
             px(k.bottom()), stroke);
      text(out, x + 3, k.top() + 22, r.label, "start", " font-size=\"10\"");
    } else {
      if (!k.y_drawable(r.at)) continue;
      const double y = k.sy(r.at);
      if (y < k.top() || y > k.bottom()) continue;
      append(out, "<line x1=\"", px(k.left()), "\" y1=\"", px(y), "\" x2=\"", px(k.right()),
             "\" y2=\"", px(y), stroke);
      text(out, k.right() - 3, y - 3, r.label, "end", " font-size=\"10\"");
    }
  }
}

// The legend on one line above the plot, from the left, so that it hides nothing drawn; the
// names that do not fit are counted ("+3 more").
void legend_box(std::string& out, const Canvas& k,
                const std::vector<std::pair<std::string, std::string>>& legend) {
  double x = k.left();
  for (std::size_t i = 0; i < legend.size(); ++i) {
    const auto& [name, color] = legend[i];
    const double width = 30 + 6.2 * static_cast<double>(name.size());  // 11px sans, roughly
    if (x + width > k.right() && i > 0) {
      std::string more(1, '+');
      append(more, std::to_string(legend.size() - i), " more");
      text(out, x, kLegendY, more, "start", " font-size=\"11\"");
      break;
    }
    append(out, "<line x1=\"", px(x), "\" y1=\"", px(kLegendY - 4), "\" x2=\"", px(x + 18),
           "\" y2=\"", px(kLegendY - 4), "\" stroke=\"", escape(color), "\" stroke-width=\"2\"/>");
    text(out, x + 22, kLegendY, name, "start", " font-size=\"11\"");
    x += width;
  }
}

}  // namespace

std::string svg(const Chart& c) {
  Range x, y;
  for (const Series& s : c.series)
    for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (!std::isfinite(s.y[i]) || (c.log_y && s.y[i] <= 0)) continue;
      x.add(s.x[i]);
      y.add(c.log_y ? std::log10(s.y[i]) : s.y[i]);
    }
  for (const Span& s : c.spans) x.add(s.from), x.add(s.to);
  for (const Segment& s : c.segments) {
    x.add(s.x1), x.add(s.x2);
    for (const double v : {s.y1, s.y2})
      if (!c.log_y || v > 0) y.add(c.log_y ? std::log10(v) : v);
  }
  for (const Rule& r : c.rules) {
    if (r.vertical)
      x.add(r.at);
    else if (!c.log_y || r.at > 0)
      y.add(c.log_y ? std::log10(r.at) : r.at);
  }
  const bool nothing = x.empty() || y.empty();
  x.settle();
  y.settle();
  if (!c.log_y) {  // some air above and below the lines
    const double pad = (y.hi - y.lo) * 0.05;
    y.lo -= pad, y.hi += pad;
  }
  const Canvas k(c, x, y);
  const std::string width = std::to_string(c.width), height = std::to_string(c.height);
  std::string out;
  append(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", width, "\" height=\"", height,
         "\" viewBox=\"0 0 ", width, " ", height,
         "\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\">");
  append(out, "<title>", escape(c.title), "</title>");
  axes(out, c, k);
  spans(out, c, k);
  segments(out, c, k);
  std::vector<std::pair<std::string, std::string>> legend;
  lines(out, c, k, legend);
  rules(out, c, k);
  legend_box(out, k, legend);
  if (nothing)
    text(out, (k.left() + k.right()) / 2, (k.top() + k.bottom()) / 2, "no data", "middle");
  out += "</svg>";
  return out;
}

Chart histogram(std::string title, std::string x_label, std::vector<Distribution> sets,
                std::size_t bins) {
  bins = std::max<std::size_t>(bins, 1);
  Range r;
  for (const Distribution& d : sets)
    for (const double v : d.values) r.add(v);
  r.settle();
  const double width = (r.hi - r.lo) / static_cast<double>(bins);
  Chart chart;
  chart.title = std::move(title);
  chart.x_label = std::move(x_label);
  chart.y_label = "count";
  for (Distribution& d : sets) {
    std::vector<double> counts(bins, 0.0);
    for (const double v : d.values) {
      if (!std::isfinite(v)) continue;
      const auto bin = static_cast<std::size_t>(std::floor((v - r.lo) / width));
      ++counts[std::min(bin, bins - 1)];  // the largest value closes the last bin
    }
    Series s;
    s.name = std::move(d.name);
    s.color = std::move(d.color);
    s.x.push_back(r.lo);
    s.y.push_back(0);
    for (std::size_t b = 0; b < bins; ++b) {
      const double from = r.lo + static_cast<double>(b) * width;
      s.x.insert(s.x.end(), {from, from + width});
      s.y.insert(s.y.end(), {counts[b], counts[b]});
    }
    s.x.push_back(r.hi);
    s.y.push_back(0);
    chart.series.push_back(std::move(s));
  }
  return chart;
}

Series thinned(Series s, std::size_t max_points) {
  const std::size_t n = std::min(s.x.size(), s.y.size());
  max_points = std::max<std::size_t>(max_points, 3);
  if (n <= max_points) return s;
  // Each bucket gives at most its smallest, its largest, and a gap when it has one.
  const bool gaps = std::any_of(s.y.begin(), s.y.begin() + static_cast<std::ptrdiff_t>(n),
                                [](double v) { return !std::isfinite(v); });
  const std::size_t buckets = std::max<std::size_t>(max_points / (gaps ? 3 : 2), 1);
  std::vector<double> x, y;
  x.reserve(max_points);
  y.reserve(max_points);
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t from = b * n / buckets, to = (b + 1) * n / buckets;
    std::optional<std::size_t> lo, hi;
    bool gap = false;  // a non-finite y: the bucket keeps one, so that the line still breaks
    for (std::size_t i = from; i < to; ++i) {
      if (!std::isfinite(s.y[i])) {
        gap = true;
        continue;
      }
      if (!lo || s.y[i] < s.y[*lo]) lo = i;
      if (!hi || s.y[i] > s.y[*hi]) hi = i;
    }
    if (lo) {
      const std::size_t first = std::min(*lo, *hi), second = std::max(*lo, *hi);
      x.push_back(s.x[first]);
      y.push_back(s.y[first]);
      if (second != first) {
        x.push_back(s.x[second]);
        y.push_back(s.y[second]);
      }
    }
    if (gap) {
      x.push_back(s.x[to - 1]);
      y.push_back(std::numeric_limits<double>::quiet_NaN());
    }
  }
  s.x = std::move(x);
  s.y = std::move(y);
  return s;
}

}  // namespace warpwatch::report
