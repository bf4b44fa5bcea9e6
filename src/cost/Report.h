// Report: renders estimates for people (an aligned text block per kernel: prediction, bottleneck, launch
// and occupancy, work, memory traffic, pipeline, issue per role, a per-resource table, the model's notes)
// and for programs (--json: one object per kernel with every number the text shows, in SI units).
#pragma once
#include "cost/TimeModel.h"

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace cake::cost {

void renderEstimateText(const std::vector<Estimate> &estimates, const std::map<std::string, int64_t> &shape,
                        std::ostream &os);
std::string estimateToJson(const Estimate &e, const std::map<std::string, int64_t> &shape);
void renderEstimateJson(const std::vector<Estimate> &estimates, const std::map<std::string, int64_t> &shape,
                        std::ostream &os);

// Number formatting shared with the sweep report: "1.23 ms", "45.6 GB", "2.1 TFLOP".
std::string formatSeconds(double s);
std::string formatBytes(double b);
std::string formatCount(double n, const char *unit);
std::string jsonString(std::string_view s);
std::string jsonNumber(double v);

} // namespace cake::cost
