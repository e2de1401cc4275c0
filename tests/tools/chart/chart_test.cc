#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/chart/chart.h"

namespace rockpool::chart {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// What is wrong with `doc` as XML, "" if nothing: one declaration, one root
// element, every element closed in order, quotes paired inside tags, no
// markup character loose in text, every '&' an entity. Enough for what a
// chart writes (no comments, CDATA or doctype), strict about all of it.
std::string XmlProblem(absl::string_view doc) {
  if (!absl::StartsWith(doc, "<?xml ")) return "no XML declaration";
  size_t at = doc.find("?>") + 2;
  std::vector<std::string> open;
  int roots = 0;
  for (size_t amp = doc.find('&'); amp != absl::string_view::npos; amp = doc.find('&', amp + 1)) {
    const absl::string_view rest = doc.substr(amp);
    if (!absl::StartsWith(rest, "&amp;") && !absl::StartsWith(rest, "&lt;") &&
        !absl::StartsWith(rest, "&gt;") && !absl::StartsWith(rest, "&quot;")) {
      return "a bare &";
    }
  }
  while (at < doc.size()) {
    const size_t lt = doc.find('<', at);
    const absl::string_view text = doc.substr(at, lt == absl::string_view::npos ? lt : lt - at);
    if (absl::StrContains(text, '>')) return "a loose >";
    if (open.empty() && !absl::StripAsciiWhitespace(text).empty()) return "text outside the root";
    if (lt == absl::string_view::npos) break;
    const size_t gt = doc.find('>', lt);
    if (gt == absl::string_view::npos) return "a tag without its >";
    const absl::string_view tag = doc.substr(lt + 1, gt - lt - 1);
    if (absl::StrContains(tag, '<')) return "a < inside a tag";
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0) return "an unpaired quote";
    if (absl::StartsWith(tag, "/")) {
      if (open.empty() || open.back() != tag.substr(1)) return "a stray end tag";
      open.pop_back();
    } else {
      if (open.empty() && ++roots > 1) return "two root elements";
      if (!absl::EndsWith(tag, "/")) open.emplace_back(tag.substr(0, tag.find_first_of(" /")));
    }
    at = gt + 1;
  }
  if (roots != 1) return "no root element";
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

// Each element `<name ...>` of `svg`, its text up to the closing '>'.
std::vector<std::string> Elements(const std::string& svg, const std::string& name) {
  std::vector<std::string> out;
  const std::string start = "<" + name + " ";
  for (size_t at = svg.find(start); at != std::string::npos; at = svg.find(start, at + 1)) {
    out.push_back(svg.substr(at, svg.find('>', at) - at + 1));
  }
  return out;
}

std::vector<Point> PointsOf(const std::string& polyline) {
  const size_t from = polyline.find("points=\"") + 8;
  std::vector<Point> out;
  for (absl::string_view pair : absl::StrSplit(
           polyline.substr(from, polyline.find('"', from) - from), ' ', absl::SkipEmpty())) {
    const std::vector<absl::string_view> xy = absl::StrSplit(pair, ',');
    Point p;
    EXPECT_EQ(xy.size(), 2u) << pair;
    EXPECT_TRUE(absl::SimpleAtod(xy[0], &p.x) && absl::SimpleAtod(xy[1], &p.y)) << pair;
    out.push_back(p);
  }
  return out;
}

constexpr Box kPlot{50, 40, 400, 200};

TEST(LineChartTest, SeriesMapIntoThePlotArea) {
  LineChart c;
  c.series = {{"rising", "#123456", false, {{0, 0}, {3, 40}, {10, 100}}},
              {"low", "red", false, {{2.5, 10}, {7, 20}}}};
  const std::vector<std::string> lines = Elements(DrawLineChart(c, kPlot), "polyline");
  ASSERT_EQ(lines.size(), 2u);
  // Axes from 0 to a whole step at or above the largest value: x 0..10 in
  // steps of 2, y 0..100 in steps of 20, so (10, 100) is the top right corner.
  const std::vector<Point> rising = PointsOf(lines[0]);
  ASSERT_EQ(rising.size(), 3u);
  EXPECT_DOUBLE_EQ(rising[0].x, kPlot.x);
  EXPECT_DOUBLE_EQ(rising[0].y, kPlot.y + kPlot.h);
  EXPECT_DOUBLE_EQ(rising[1].x, kPlot.x + 0.3 * kPlot.w);
  EXPECT_DOUBLE_EQ(rising[1].y, kPlot.y + 0.6 * kPlot.h);
  EXPECT_DOUBLE_EQ(rising[2].x, kPlot.x + kPlot.w);
  EXPECT_DOUBLE_EQ(rising[2].y, kPlot.y);
  for (const Point& p : PointsOf(lines[1])) {
    EXPECT_GT(p.x, kPlot.x);
    EXPECT_LT(p.x, kPlot.x + kPlot.w);
    EXPECT_GT(p.y, kPlot.y);
    EXPECT_LT(p.y, kPlot.y + kPlot.h);
  }
  EXPECT_THAT(lines[0], HasSubstr("stroke=\"#123456\""));
}

TEST(LineChartTest, DashedSeriesCarryADashArray) {
  LineChart c;
  c.series = {{"solid", "red", false, {{0, 1}, {1, 2}}},
              {"dashed", "blue", true, {{0, 2}, {1, 3}}},
              {"no points", "green", true, {}}};
  const std::string svg = DrawLineChart(c, kPlot);
  const std::vector<std::string> lines = Elements(svg, "polyline");
  ASSERT_EQ(lines.size(), 2u);  // the series without points: legend only
  EXPECT_THAT(lines[0], Not(HasSubstr("stroke-dasharray")));
  EXPECT_THAT(lines[1], HasSubstr("stroke-dasharray=\"6 4\""));
  // The legend draws each series' line as the series does, dashes included.
  const std::vector<std::string> swatches = Elements(svg, "line");
  int dashed_swatches = 0;
  for (const std::string& l : swatches) dashed_swatches += absl::StrContains(l, "dasharray");
  EXPECT_EQ(dashed_swatches, 2);
  for (const char* name : {">solid<", ">dashed<", ">no points<"}) {
    EXPECT_THAT(svg, HasSubstr(name));
  }
}

TEST(LineChartTest, ByteAxisTicksInPowersOfTwoWithTheirLabels) {
  LineChart c;
  c.x_label = "seconds";
  c.y_bytes = [](double v) { return absl::StrCat(v, " B"); };
  c.series = {{"s", "red", false, {{0, 0}, {1, 3000}}}};
  const std::string svg = DrawLineChart(c, kPlot);
  // 3000 / 5 intervals = 600, rounded up to 1024: the axis ends at 3072.
  for (const char* label : {">0 B<", ">1024 B<", ">2048 B<", ">3072 B<"}) {
    EXPECT_THAT(svg, HasSubstr(label));
  }
  EXPECT_THAT(svg, Not(HasSubstr(">4096 B<")));
  EXPECT_THAT(svg, HasSubstr(">seconds<"));
}

TEST(PercentBarChartTest, BarsAreThePercentagesOfTheReference) {
  PercentBarChart c{"t", "before", "red", "after", "blue", {}};
  c.bars = {{"quarter", 50, 200}, {"tiny", 1, 200}, {"no reference", 5, 0}};
  const std::string svg = DrawPercentBarChart(c, kPlot);
  // "no reference" (a reference of 0) is at 0%: its label and a sliver.
  for (const char* label : {">25%<", ">0.5%<", ">0%<", ">100%<", ">before (= 100%)<", ">after<"}) {
    EXPECT_THAT(svg, HasSubstr(label));
  }
  EXPECT_THAT(svg, HasSubstr("y=\"239.5\" width=\"45.3\" height=\"0.5\" fill=\"blue\""));
  // The axis ends at 100%: the reference's bar is the plot's full height,
  // the quarter's a quarter of it, standing on the plot's bottom (y 240).
  // Three categories share 400 units: bars of 34% of 133.3.
  EXPECT_THAT(svg, HasSubstr("y=\"40.0\" width=\"45.3\" height=\"200.0\" fill=\"red\""));
  EXPECT_THAT(svg, HasSubstr("y=\"190.0\" width=\"45.3\" height=\"50.0\" fill=\"blue\""));
}

TEST(PercentBarChartTest, AxisGrowsAboveOneHundredPercent) {
  PercentBarChart c{"t", "before", "red", "after", "blue", {{"triple", 300, 100}}};
  const std::string svg = DrawPercentBarChart(c, kPlot);
  EXPECT_THAT(svg, HasSubstr(">300%<"));
  EXPECT_THAT(svg, Not(HasSubstr(">400%<")));
  for (const std::string& rect : Elements(svg, "rect")) {
    double y = 0;
    const size_t at = rect.find(" y=\"") + 4;
    ASSERT_TRUE(absl::SimpleAtod(rect.substr(at, rect.find('"', at) - at), &y)) << rect;
    EXPECT_GE(y, kPlot.y) << rect;
  }
}

TEST(SvgTest, DisplayedTextIsEscaped) {
  EXPECT_EQ(Text(1, 2, "a<b & \"c\" > d"),
            "<text x=\"1.0\" y=\"2.0\">a&lt;b &amp; &quot;c&quot; &gt; d</text>\n");
  EXPECT_THAT(Text(0, 0, std::string("tab\there\x01\x1f"), "class=\"h\""),
              HasSubstr(" class=\"h\">tab\there\?\?<"));
  LineChart line;
  line.title = "<script>alert(1)</script>";
  line.x_label = "x & y";
  line.series = {{"\"quoted\" <name>", "red", false, {{1, 1}}}};
  PercentBarChart bars{"a < b", "s&p", "red", "p>s", "blue", {{"</text>", 1, 2}}};
  const std::string svg =
      SvgDocument(800, 400, DrawLineChart(line, kPlot) + DrawPercentBarChart(bars, kPlot));
  EXPECT_EQ(XmlProblem(svg), "");
  EXPECT_THAT(svg, Not(HasSubstr("<script")));
  EXPECT_THAT(svg, HasSubstr("&lt;script&gt;"));
  EXPECT_THAT(svg, HasSubstr(">&quot;quoted&quot; &lt;name&gt;<"));
  EXPECT_THAT(svg, HasSubstr(">&lt;/text&gt;<"));
}

TEST(SvgTest, EmptyInputGivesAValidDocument) {
  const std::string svg = SvgDocument(
      300, 200, DrawLineChart(LineChart{}, kPlot) + DrawPercentBarChart(PercentBarChart{}, kPlot));
  EXPECT_EQ(XmlProblem(svg), "");
  EXPECT_THAT(svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
                             "width=\"300\" height=\"200\""));
  EXPECT_EQ(Elements(svg, "polyline").size(), 0u);
  EXPECT_EQ(XmlProblem(SvgDocument(10, 10, "")), "");
  // The checker itself rejects what a broken writer would produce.
  EXPECT_NE(XmlProblem(SvgDocument(10, 10, "<text>a & b</text>")), "");
  EXPECT_NE(XmlProblem(SvgDocument(10, 10, "<text>a</line>")), "");
  EXPECT_NE(XmlProblem(SvgDocument(10, 10, "<text x=\"1>a</text>")), "");
}

}  // namespace
}  // namespace rockpool::chart
