#include <sys/mman.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <vector>
static double now(){return std::chrono::duration<double,std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();}
int main(){
  const size_t H=2<<20;
  for (size_t bytes : {size_t(65536), size_t(1<<20), size_t(3<<20), size_t(16<<20)}) {
    int N = 200;
    double t0=now();
    for(int i=0;i<N;i++){ std::vector<uint8_t> v(bytes); std::memset(v.data(), 0xA5, bytes); asm volatile(""::"r"(v.data()):"memory"); }
    double t1=now();
    for(int i=0;i<N;i++){ size_t span=(bytes+1088+H-1)/H*H; size_t m=span+H; void* p=mmap(nullptr,m,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
      auto* s=(uint8_t*)(((uintptr_t)p+H-1)/H*H); madvise(s,span,MADV_HUGEPAGE); std::memset(s+1088,0xA5,bytes); asm volatile(""::"r"(s):"memory"); munmap(p,m);}
    double t2=now();
    std::printf("%zu bytes: vector %.1f us, placed %.1f us per alloc+fill+free\n", bytes, (t1-t0)/N, (t2-t1)/N);
  }
}
