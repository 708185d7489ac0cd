// `warpwatch learn`'s inputs: the positives by class and the negatives, read and checked
// (every bad input an error naming the file and what to do, before anything is written).
#pragma once

#include <iosfwd>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "commands.hpp"
#include "warpwatch/learn/calibrate.hpp"

namespace warpwatch::cli {

struct LearnClass {
  std::string label;  // "" for positives without a class (one pattern)
  std::vector<learn::Series> examples;
  std::vector<std::string> names;  // each example's series name, for messages
};

struct LearnInputs {
  std::string positives_file;  // the file the positives came from (messages name it)
  std::vector<LearnClass> classes;
  std::vector<learn::Negative> negatives;
  std::vector<std::string> negative_files;  // negatives[i] came from negative_files[i]
  std::size_t dims = 1;
};

LearnInputs read_learn_inputs(const LearnCommand& cmd, std::ostream& err);

// Two class labels name the same class: equal text, or equal whole numbers in any notation
// ("1" and "1.0", "-1" and "-1.0000000e+00" as UCR's ECG200 writes them).
bool same_label(const std::string& a, const std::string& b);

// A series of `s.dims` dims as a negative, its times from the file or `period_s` apart.
learn::Negative as_negative(const std::string& name, const learn::Series& s,
                            const std::vector<double>& times_s, double period_s);

// Series without timestamps laid end to end, in their order, as one negative (as a stream
// carries them one after another: windows across their boundaries are scored too), named
// "first .. last (k series end to end)"; one series is itself (its name, no joins).
learn::Negative end_to_end(std::span<const learn::Series> series,
                           std::span<const std::string> names, double period_s);

}  // namespace warpwatch::cli
