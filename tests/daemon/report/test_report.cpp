// daemon/report: the charts' SVG and the pages' HTML.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <regex>
#include <string>

#include "test_support.hpp"
#include "warpwatch/report/html.hpp"
#include "warpwatch/report/svg.hpp"

namespace warpwatch::report {
namespace {

using warpwatch::testing::TempDir;

Series line(std::string name, std::vector<double> x, std::vector<double> y) {
  Series s;
  s.name = std::move(name);
  s.x = std::move(x);
  s.y = std::move(y);
  return s;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportSvg, DrawsEachSeriesSpanAndRuleWithItsTextEscaped) {
  Chart c;
  c.title = "a <b> & \"c\"";
  c.series.push_back(line("one", {0, 1, 2}, {0, 1, 0}));
  c.series.push_back(line("two", {0, 1, 2}, {1, 2, 1}));
  c.series.back().dashed = true;
  Span span;
  span.from = 0.5;
  span.to = 1.5;
  span.label = "gun<1>";
  c.spans.push_back(span);
  Rule threshold;
  threshold.at = 1.5;
  threshold.label = "T";
  threshold.vertical = false;
  c.rules.push_back(threshold);
  const std::string s = svg(c);
  EXPECT_EQ(s.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(s.substr(s.size() - 6), "</svg>");
  EXPECT_EQ(count(s, "<path "), 2u);
  EXPECT_EQ(count(s, "stroke-dasharray=\"5 3\""), 1u);  // the dashed series only
  EXPECT_NE(s.find("a &lt;b&gt; &amp; &quot;c&quot;"), std::string::npos);
  EXPECT_NE(s.find("gun&lt;1&gt;"), std::string::npos);
  EXPECT_EQ(s.find("<b>"), std::string::npos);
  EXPECT_EQ(count(s, "fill-opacity=\"0.18\""), 1u);     // the span
  EXPECT_NE(s.find(">one</text>"), std::string::npos);  // legend
  EXPECT_NE(s.find(">two</text>"), std::string::npos);
}

TEST(ReportSvg, ANonFiniteValueBreaksTheLineAndLogAxesLeaveOutNonPositives) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Chart c;
  c.series.push_back(line("", {0, 1, 2, 3, 4}, {1, 2, nan, 3, 4}));
  std::string s = svg(c);
  const std::smatch m = [&] {
    std::smatch r;
    std::regex_search(s, r, std::regex("d=\"([^\"]*)\""));
    return r;
  }();
  EXPECT_EQ(count(m[1], "M"), 2u) << m[1];
  EXPECT_EQ(count(m[1], "L"), 2u) << m[1];
  c.log_y = true;
  c.series[0].y = {0, 10, 100, -1, 1000};
  s = svg(c);
  std::smatch r;
  ASSERT_TRUE(std::regex_search(s, r, std::regex("d=\"([^\"]*)\"")));
  const std::string d = r[1];
  EXPECT_EQ(count(d, "M") + count(d, "L"), 3u) << d;  // 10, 100, 1000
}

TEST(ReportSvg, AChartWithNothingToDrawSaysSo) {
  Chart c;
  c.title = "empty";
  const std::string s = svg(c);
  EXPECT_NE(s.find("no data"), std::string::npos);
  EXPECT_EQ(count(s, "<path "), 0u);
}

TEST(ReportSvg, HistogramCountsEveryFiniteValueOnSharedBins) {
  const Chart c = histogram(
      "h", "distance", {{"pos", {0, 1, 1, 2, 10}, ""}, {"neg", {5, 6, std::nan(""), 10}, ""}}, 5);
  ASSERT_EQ(c.series.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    const Series& s = c.series[k];
    EXPECT_DOUBLE_EQ(s.x.front(), 0);  // both on the bins of all values: 0 .. 10
    EXPECT_DOUBLE_EQ(s.x.back(), 10);
    double total = 0;  // each bin is drawn as two points of its count
    for (std::size_t i = 1; i + 1 < s.y.size(); i += 2) total += s.y[i];
    EXPECT_DOUBLE_EQ(total, k == 0 ? 5 : 3) << s.name;
  }
  EXPECT_DOUBLE_EQ(c.series[0].y[1], 3);  // 0, 1, 1 in [0, 2)...
  EXPECT_DOUBLE_EQ(c.series[0].y[3], 1);  // ...2 in [2, 4)...
  EXPECT_DOUBLE_EQ(c.series[0].y[9], 1);  // ...and 10 closes the last bin
}

TEST(ReportSvg, ThinningKeepsTheExtremesOfEveryBucket) {
  Series s;
  for (int i = 0; i < 10000; ++i) {
    s.x.push_back(i);
    s.y.push_back(std::sin(i * 0.01));
  }
  s.y[5000] = 50;  // a spike must survive
  s.y[7000] = -50;
  const Series t = thinned(s, 200);
  EXPECT_LE(t.x.size(), 200u);
  EXPECT_GE(t.x.size(), 150u);
  EXPECT_DOUBLE_EQ(*std::max_element(t.y.begin(), t.y.end()), 50);
  EXPECT_DOUBLE_EQ(*std::min_element(t.y.begin(), t.y.end()), -50);
  EXPECT_TRUE(std::is_sorted(t.x.begin(), t.x.end()));
  s.y[100] = std::nan("");  // a gap survives too
  const Series g = thinned(s, 200);
  EXPECT_LE(g.x.size(), 200u);
  EXPECT_EQ(std::count_if(g.y.begin(), g.y.end(), [](double v) { return std::isnan(v); }), 1);
  EXPECT_EQ(thinned(s, 20000).x.size(), s.x.size());  // short enough: as it was
}

TEST(ReportHtml, APageIsOneDocumentThatFetchesNothing) {
  Page p("learn <gun>");
  p.paragraph("a & b").table({"T", "recall"}, {{"1.5", "0.9"}}).figure(svg(Chart{}), "cap");
  p.preformatted("warpwatch learn --positives x");
  const std::string h = p.html();
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(h.find("<title>learn &lt;gun&gt;</title>"), std::string::npos);
  EXPECT_EQ(count(h, "<h1>"), 1u);  // the title, once: a page's heading is its own
  EXPECT_NE(h.find("<p>a &amp; b</p>"), std::string::npos);
  EXPECT_NE(h.find("<td>1.5</td><td>0.9</td>"), std::string::npos);
  EXPECT_NE(h.find("<figcaption>cap</figcaption>"), std::string::npos);
  for (const char* fetch : {"src=", "href=", "<script", "<link", "url("})
    EXPECT_EQ(h.find(fetch), std::string::npos) << fetch;
}

TEST(ReportHtml, WriteIsAllOrNothingAndNamesThePath) {
  const TempDir dir;
  const std::filesystem::path path = dir.file("r.html");
  Page("one").write(path);
  std::ifstream in(path);
  const std::string written((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(written, Page("one").html());
  const std::filesystem::path missing = std::filesystem::path(dir.path()) / "no" / "r.html";
  try {
    Page("two").write(missing);
    FAIL() << "wrote into a folder that does not exist";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

TEST(ReportHtml, NumbersForPeople) {
  EXPECT_EQ(number(0.125), "0.125");
  EXPECT_EQ(number(1234567), "1.235e+06");
  EXPECT_EQ(number(2.0 / 3, 2), "0.67");
  EXPECT_EQ(number(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(number(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(number(std::nan("")), "nan");
}

}  // namespace
}  // namespace warpwatch::report
