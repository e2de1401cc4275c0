// The SVG 1.1 document the charts are drawn into, and its few elements.
// Plain text: no scripts, no external files (fonts by family name only), so
// a browser, an image viewer or a converter shows it offline as it is.
//
// Every string given for display is XML-escaped here; attribute strings
// (`attrs`) are written as given and must be well-formed attributes.
// Coordinates are SVG user units, y growing downwards.
//
// The document's stylesheet defines the classes the charts use, which
// callers may use too: "t" a title, "h" a heading, "v" a small value label,
// "grid", "axis", "frame" (lines and outlines) and "legend" (its box).
#ifndef ROCKPOOL_TOOLS_CHART_SVG_H_
#define ROCKPOOL_TOOLS_CHART_SVG_H_

#include <string>
#include "absl/strings/string_view.h"

namespace rockpool::chart {

// A rectangle of the drawing: its top left corner, width and height.
struct Box {
  double x = 0;
  double y = 0;
  double w = 0;
  double h = 0;
};

// `s` safe as XML character data or a double-quoted attribute value: the
// markup characters as entities, and the control characters XML 1.0 does
// not allow (all below 0x20 but tab, newline, carriage return) as '?'.
std::string EscapeXml(absl::string_view s);

// One element each, on its own line; `attrs` follows the coordinates.
std::string Text(double x, double y, absl::string_view text, absl::string_view attrs = "");
std::string Line(double x1, double y1, double x2, double y2, absl::string_view attrs);
std::string Rect(const Box& box, absl::string_view attrs);

// The whole document, `width` by `height`, on a white background: the XML
// declaration, the root element with its stylesheet, `body`, the end tag.
std::string SvgDocument(double width, double height, absl::string_view body);

}  // namespace rockpool::chart

#endif  // ROCKPOOL_TOOLS_CHART_SVG_H_
