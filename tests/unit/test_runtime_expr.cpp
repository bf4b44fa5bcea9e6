// Runtime: the manifest's expression language (parser and checked evaluator), also through the C API.
#include "Expr.h"
#include "ExprProgram.h"
#include "cake/runtime.h"

#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <vector>
#include <string>

using namespace cake::rt;

namespace {

int64_t eval(const std::string &text, const std::map<std::string, int64_t> &names = {}) {
  return Expr::parse(text).evaluate([&](std::string_view name) -> std::optional<int64_t> {
    auto it = names.find(std::string(name));
    if (it == names.end())
      return std::nullopt;
    return it->second;
  });
}

std::string evalError(const std::string &text, const std::map<std::string, int64_t> &names = {}) {
  try {
    eval(text, names);
  } catch (const ExprEvalError &e) {
    return e.what();
  } catch (const ExprSyntaxError &e) {
    return std::string("syntax: ") + e.what();
  }
  return "no error";
}

} // namespace

TEST_CASE("runtime expr: precedence and associativity follow C") {
  CHECK(eval("1 + 2 * 3") == 7);
  CHECK(eval("(1 + 2) * 3") == 9);
  CHECK(eval("10 - 4 - 3") == 3);
  CHECK(eval("64 / 4 / 2") == 8);
  CHECK(eval("2 + 3 % 2") == 3);
  CHECK(eval("1 << 2 + 1") == 8);
  CHECK(eval("1 + 1 == 2 && 3 > 2") == 1);
  CHECK(eval("1 | 2 ^ 3 & 1") == (1 | (2 ^ (3 & 1))));
  CHECK(eval("0 || 2 < 1 || 5 >= 5") == 1);
  CHECK(eval("-3 * -2") == 6);
  CHECK(eval("!0 + !7") == 1);
  CHECK(eval("~0") == -1);
  CHECK(eval("- - 4") == 4);
  CHECK(eval("1 != 2") == 1);
  CHECK(eval("3 <= 3 && 4 < 3 == 0") == 1);
  CHECK(eval("0x40 + 0") == 64);
  CHECK(eval("true && !false") == 1);
}

TEST_CASE("runtime expr: names, cdiv, min, max") {
  std::map<std::string, int64_t> env{{"M", 4096}, {"BM", 128}, {"N", 1000}, {"num_sms", 132}};
  CHECK(eval("cdiv(M, BM)", env) == 32);
  CHECK(eval("cdiv(N, BM)", env) == 8);
  CHECK(eval("cdiv(0, BM)", env) == 0);
  CHECK(eval("cdiv(-7, 2)") == -3);
  CHECK(eval("cdiv(7, -2)") == -3);
  CHECK(eval("cdiv(-7, -2)") == 4);
  CHECK(eval("min(cdiv(M, BM) * cdiv(N, BM), num_sms)", env) == 132);
  CHECK(eval("max(1, min(2, 3))") == 2);
  CHECK(eval("-7 / 2") == -3); // truncation toward zero
  CHECK(eval("-7 % 2") == -1);
  Expr e = Expr::parse("cdiv(M, BM) * M + N");
  CHECK(e.names() == std::vector<std::string>{"M", "BM", "N"});
  CHECK(Expr::parse("M").bareName() == "M");
  CHECK(Expr::parse("M + 0").bareName().empty());
  CHECK(Expr::parse("12").literal() == 12);
}

TEST_CASE("runtime expr: evaluation errors name the sub-expression") {
  CHECK(evalError("K / (N - N)", {{"K", 5}, {"N", 3}}).find("division by zero in `(K / (N - N))`") != std::string::npos);
  CHECK(evalError("K % 0", {{"K", 5}}).find("division by zero") != std::string::npos);
  CHECK(evalError("cdiv(K, 0)", {{"K", 5}}).find("division by zero") != std::string::npos);
  CHECK(evalError("Q + 1").find("unknown name 'Q'") != std::string::npos);
  CHECK(evalError("9223372036854775807 + 1").find("integer overflow") != std::string::npos);
  CHECK(evalError("3037000500 * 3037000500").find("integer overflow") != std::string::npos);
  CHECK(evalError("-(0 - 9223372036854775807 - 1)").find("integer overflow") != std::string::npos);
  CHECK(evalError("(0 - 9223372036854775807 - 1) / -1").find("integer overflow") != std::string::npos);
  CHECK(evalError("1 << 64").find("shift count 64 outside 0..63") != std::string::npos);
  CHECK(evalError("1 << 63").find("integer overflow") != std::string::npos);
  CHECK(eval("1 << 62") == (int64_t{1} << 62));
  // && and || short-circuit: the right side is not evaluated.
  CHECK(eval("N == 0 || K / N > 1", {{"K", 5}, {"N", 0}}) == 1);
  CHECK(eval("N != 0 && K / N > 1", {{"K", 5}, {"N", 0}}) == 0);
}

TEST_CASE("runtime expr: syntax errors give the column") {
  const char *bad[][2] = {
      {"1 +", "unexpected end of expression"},
      {"(1 + 2", "expected ')'"},
      {"1 2", "at column 3: unexpected '2'"},
      {"foo(1, 2)", "unknown function 'foo'"},
      {"cdiv(1)", "cdiv takes 2 arguments, got 1"},
      {"min(1, 2, 3)", "min takes 2 arguments, got 3"},
      {"99999999999999999999", "does not fit in 64 bits"},
      {"12abc", "after integer literal"},
      {"a $ b", "unexpected '$'"},
      {"", "unexpected end of expression"},
  };
  for (auto &c : bad) {
    CAPTURE(c[0]);
    std::string error = evalError(c[0]);
    CHECK(error.rfind("syntax: ", 0) == 0);
    CHECK(error.find(c[1]) != std::string::npos);
  }
  CHECK(evalError(std::string(10000, '(')).find("syntax: ") == 0);
  CHECK(evalError(std::string(200, '(') + "1" + std::string(200, ')')).find("nested too deeply") != std::string::npos);
  CHECK(evalError(std::string(300, '-') + "1").find("nested too deeply") != std::string::npos);
}

TEST_CASE("runtime expr: cake_eval_expression (C API)") {
  cake_named_int names[] = {{"M", 1000}, {"BM", 128}};
  int64_t value = 0;
  char err[256];
  CHECK(cake_eval_expression("cdiv(M, BM)", names, 2, &value, err, sizeof err) == CAKE_OK);
  CHECK(value == 8);
  CHECK(std::string(err).empty());
  CHECK(cake_eval_expression("M / (BM - 128)", names, 2, &value, err, sizeof err) == CAKE_ERROR_EXPRESSION);
  CHECK(std::string(err).find("division by zero") != std::string::npos);
  CHECK(cake_eval_expression("M +", names, 2, &value, err, sizeof err) == CAKE_ERROR_EXPRESSION);
  CHECK(cake_eval_expression(nullptr, names, 2, &value, err, sizeof err) == CAKE_ERROR_INVALID_ARGUMENT);
  // A tiny error buffer truncates instead of overflowing.
  char tiny[8];
  CHECK(cake_eval_expression("Q", nullptr, 0, &value, tiny, sizeof tiny) == CAKE_ERROR_EXPRESSION);
  CHECK(std::string(tiny).size() == 7);
}

TEST_CASE("runtime expr: a compiled ExprProgram evaluates exactly as Expr::evaluate, errors included") {
  const std::vector<std::string> slots{"M", "N", "K"};
  const char *texts[] = {"M <= 64 && N % 8 == 0",
                         "cdiv(M, 128) * cdiv(N, 256) >= 132 || K > 8192",
                         "-M / 3 + N % -5 - min(K, 7) * max(M, N)",
                         "!(M & 1) | (N ^ K) << 2",
                         "~M >> 1",
                         "M / (N - N)",
                         "M * 4611686018427387904",
                         "(M > 0) * 2 - (K == 4096)",
                         "1 << K",
                         "64 >= M && K % 64 != 0 && N == 4096",
                         "N % 3 == 2 && 1 && -7 < M",
                         "M % -3 == 0",
                         "2", "0", "1", "128"};
  const int64_t shapes[][3] = {{1, 1, 1}, {64, 4096, 4096}, {65, 4097, 63}, {0, 8, 8192}, {-7, 3, 70}};
  for (const char *text : texts) {
    Expr expr = Expr::parse(text);
    ExprProgram program = ExprProgram::compile(expr, slots);
    for (const auto &shape : shapes) {
      auto lookup = [&](std::string_view name) -> std::optional<int64_t> {
        for (size_t i = 0; i < slots.size(); ++i)
          if (slots[i] == name) return shape[i];
        return std::nullopt;
      };
      std::optional<int64_t> expected;
      std::string expectedError;
      try {
        expected = expr.evaluate(lookup);
      } catch (const ExprEvalError &e) {
        expectedError = e.what();
      }
      int64_t value = 0;
      std::string error;
      bool ok = program.evaluate(shape, value, &error);
      CAPTURE(text);
      CAPTURE(shape[0]);
      CHECK(ok == expected.has_value());
      if (ok && expected) CHECK(value == *expected);
      if (!ok) CHECK(error == expectedError);
    }
  }
  CHECK_THROWS_WITH_AS(ExprProgram::compile(Expr::parse("M + Q"), slots), "in `M + Q`: unknown name 'Q'",
                       ExprSyntaxError);
}

TEST_CASE("runtime expr: conjuncts split the top-level && chain and render with the parentheses needed") {
  std::vector<Expr> parts = Expr::parse("M >= 1024 && (N + 1) * 2 > K % 64 && !(K == 0 || M < 2)").conjuncts();
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].text() == "M >= 1024");
  CHECK(parts[1].text() == "(N + 1) * 2 > K % 64");
  CHECK(parts[2].text() == "!(K == 0 || M < 2)");
  CHECK(Expr::parse("M - (N - K)").conjuncts()[0].text() == "M - (N - K)");
}
