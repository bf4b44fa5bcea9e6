// SvgText: the small pieces of writing SVG as text that the cost model's pictures share (Roofline.h,
// Timeline.h): coordinates with one decimal, numbers with an SI prefix, escaped text.  Everything is
// formatted with snprintf in the C locale, so a picture's bytes depend only on its input.
#pragma once
#include <string>
#include <string_view>

namespace cake::cost::svg {

// A coordinate: one decimal, "-0.0" written as "0.0".
std::string num(double v);
// 3 significant digits and an SI prefix: "4.8 TB/s", "1.07 PFLOP/s" (an empty unit: "610 T").
std::string si(double v, const char *unit);
// Text content or an attribute value: & < > " escaped, control characters as spaces.
std::string escape(std::string_view s);
// The document's opening (XML declaration, <svg> with its size, a white background and a <title>).
std::string open(double width, double height, std::string_view title);

} // namespace cake::cost::svg
