// The members of pimg::Family that every family of this folder implements for itself: its attributes, how
// a problem and its workload are made from them, the reference output and the comparison against it.
// Declared once here so that a change to Family's contract is made in one place; each family declares the
// rest (name, traffic, work, and the optional members it overrides) beside it.
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "pimg/family.hpp"

// Inside a class derived from pimg::Family (or a namespace that sees its types): declares the five
// overrides, to be defined in the family's .cpp as usual.
#define PIMG_FAMILY_CONTRACT                                                                                   \
  std::vector<AttrSpec> attributes() const override;                                                         \
  Problem make_problem(int width, int height, int channels, std::map<std::string, std::string> attrs)         \
      const override;                                                                                        \
  Workload make_workload(const Problem& p) const override;                                                    \
  std::vector<std::uint8_t> reference(const Problem& p, const Workload& w, const std::string& rule = "")      \
      const override;                                                                                        \
  Validation compare(const Problem& p, std::span<const std::uint8_t> expected,                                \
                     std::span<const std::uint8_t> actual) const override
