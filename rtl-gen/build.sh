gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -O1 -g $(llvm-config-19 --cflags) -I/usr/lib/llvm-19/include src/*.c -o build/rtl-gen $(llvm-config-19 --ldflags) -lLLVM-19 -lclang-19
