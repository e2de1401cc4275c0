// The progress bar, drawn into a file instead of a terminal: what it writes
// when, never how fast. Waits end when the text appears (the bar draws only
// after its first second); their deadline only keeps a broken bar from
// hanging the test.
#include "tools/console/progress_bar.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace rockpool::console {
namespace {

constexpr char kErase[] = "\r\033[K";

// A file the bar writes to, read back through a stream of its own.
class BarFile {
 public:
  explicit BarFile(const std::string& name) : path_(::testing::TempDir() + name) {
    out_ = std::fopen(path_.c_str(), "w");
  }
  ~BarFile() {
    if (out_ != nullptr) std::fclose(out_);
  }
  std::FILE* out() const { return out_; }

  std::string Text() const {
    std::ifstream in(path_, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // True once the file holds `s`; false if it still does not after 30 s.
  bool WaitFor(const std::string& s) const {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (Text().find(s) == std::string::npos) {
      if (absl::Now() > deadline) return false;
      absl::SleepFor(absl::Milliseconds(20));
    }
    return true;
  }

 private:
  std::string path_;
  std::FILE* out_ = nullptr;
};

bool EndsWith(const std::string& s, const std::string& end) {
  return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

TEST(ProgressBarTest, DisabledBarWritesNothing) {
  BarFile file("disabled_bar");
  ASSERT_NE(file.out(), nullptr);
  {
    ProgressBar bar(/*enabled=*/false, file.out());
    bar.SetTotal(2);
    bar.Update(1, "first");
    bar.Clear();
    bar.Update(2, "second");
  }
  std::fflush(file.out());
  EXPECT_EQ(file.Text(), "");
}

TEST(ProgressBarTest, DrawsErasesOnClearAndShowsAgainOnUpdate) {
  BarFile file("enabled_bar");
  ASSERT_NE(file.out(), nullptr);
  {
    ProgressBar bar(/*enabled=*/true, file.out());
    bar.SetTotal(4);
    bar.Update(1, "first step");
    // A quarter of 30 cells, 7 filled.
    ASSERT_TRUE(file.WaitFor("[#######.......................]  25%"));
    ASSERT_TRUE(file.WaitFor("first step"));

    // Clear erases at once: the next output on the stream starts clean.
    bar.Clear();
    EXPECT_TRUE(EndsWith(file.Text(), kErase));

    // A long label keeps its end.
    const std::string label = std::string(80, 'x') + "/the/file/that/runs.sst";
    bar.Update(4, label);
    ASSERT_TRUE(file.WaitFor("...xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx/the/file/that/runs.sst"));
    EXPECT_TRUE(file.WaitFor("[##############################] 100%"));
  }
  // Gone from the screen with the bar.
  EXPECT_TRUE(EndsWith(file.Text(), kErase));
}

}  // namespace
}  // namespace rockpool::console
