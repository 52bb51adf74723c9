/* The ioctl layer of the SPI and I2C transports: the spi_ioc_transfer and
 * i2c_msg arrays built for a given register access, and lib/tpm's own
 * copies of those structures and ioctl numbers (a musl toolchain has no
 * kernel headers) against the kernel's. */
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <linux/spi/spidev.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tpm/i2c.h"
#include "tpm/spi.h"
#include "unit.h"

static void test_spi_header(void)
{
	uint8_t h[4];

	/* read 4 bytes of TPM_STS, locality 0: 0x83 d4 00 18 */
	tis_spi_header(h, 1, 0, TIS_STS, 4);
	CHECK_MEM(h, "\x83\xd4\x00\x18", 4);
	/* write 64 bytes to the FIFO of locality 2: 0x3f d4 20 24 */
	tis_spi_header(h, 0, 2, TIS_FIFO, 64);
	CHECK_MEM(h, "\x3f\xd4\x20\x24", 4);
	/* DID_VID of locality 4 */
	tis_spi_header(h, 1, 4, TIS_DID_VID, 1);
	CHECK_MEM(h, "\x80\xd4\x4f\x00", 4);
}

static void test_spi_xfer(void)
{
	struct tis_spi_ioc x;
	uint8_t tx[4], rx[4];

	memset(&x, 0xa5, sizeof(x));
	tis_spi_xfer(&x, tx, rx, 4, 1, 1000000);
	CHECK(x.tx_buf == (uintptr_t)tx && x.rx_buf == (uintptr_t)rx);
	CHECK(x.len == 4 && x.speed_hz == 1000000 && x.bits_per_word == 8);
	CHECK(x.cs_change == 1);	/* header: the chip select stays */
	CHECK(x.delay_usecs == 0 && x.tx_nbits == 0 && x.rx_nbits == 0);
	tis_spi_xfer(&x, tx, rx, 1, 0, 43000000);
	CHECK(x.len == 1 && x.speed_hz == 43000000 && x.cs_change == 0);
}

#define SAME(a, b, f) CHECK(offsetof(a, f) == offsetof(b, f) && \
			    sizeof(((a *)0)->f) == sizeof(((b *)0)->f))

static void test_abi(void)
{
	CHECK(sizeof(struct tis_spi_ioc) == sizeof(struct spi_ioc_transfer));
	SAME(struct tis_spi_ioc, struct spi_ioc_transfer, tx_buf);
	SAME(struct tis_spi_ioc, struct spi_ioc_transfer, rx_buf);
	SAME(struct tis_spi_ioc, struct spi_ioc_transfer, len);
	SAME(struct tis_spi_ioc, struct spi_ioc_transfer, speed_hz);
	SAME(struct tis_spi_ioc, struct spi_ioc_transfer, delay_usecs);
	SAME(struct tis_spi_ioc, struct spi_ioc_transfer, bits_per_word);
	SAME(struct tis_spi_ioc, struct spi_ioc_transfer, cs_change);
	SAME(struct tis_spi_ioc, struct spi_ioc_transfer, tx_nbits);
	SAME(struct tis_spi_ioc, struct spi_ioc_transfer, rx_nbits);
	CHECK(TIS_SPI_IOC_MESSAGE1 == SPI_IOC_MESSAGE(1));
	CHECK(TIS_SPI_IOC_WR_MODE == SPI_IOC_WR_MODE);
	CHECK(sizeof(struct tis_i2c_msg) == sizeof(struct i2c_msg));
	SAME(struct tis_i2c_msg, struct i2c_msg, addr);
	SAME(struct tis_i2c_msg, struct i2c_msg, flags);
	SAME(struct tis_i2c_msg, struct i2c_msg, len);
	SAME(struct tis_i2c_msg, struct i2c_msg, buf);
	CHECK(sizeof(struct tis_i2c_rdwr) ==
	      sizeof(struct i2c_rdwr_ioctl_data));
	SAME(struct tis_i2c_rdwr, struct i2c_rdwr_ioctl_data, msgs);
	SAME(struct tis_i2c_rdwr, struct i2c_rdwr_ioctl_data, nmsgs);
	CHECK(TIS_I2C_RDWR == I2C_RDWR && TIS_I2C_M_RD == I2C_M_RD);
}

static void test_i2c_msgs(void)
{
	struct tis_i2c_msg m[2];
	uint8_t r[1], buf[1 + 31];

	/* read 4 bytes of TPM_STS (0x18) at 0x2e: write 0x18, read 4 */
	CHECK(tis_i2c_msgs(m, 0x2e, 1, 0x18, r, buf, 4) == 2);
	CHECK(m[0].addr == 0x2e && m[0].flags == 0 && m[0].len == 1);
	CHECK(m[0].buf == r && r[0] == 0x18);
	CHECK(m[1].addr == 0x2e && m[1].flags == I2C_M_RD && m[1].len == 4);
	CHECK(m[1].buf == buf);
	/* write 3 bytes to the FIFO (0x24): one message, register first */
	memcpy(buf + 1, "abc", 3);
	CHECK(tis_i2c_msgs(m, 0x2e, 0, 0x24, NULL, buf, 3) == 1);
	CHECK(m[0].addr == 0x2e && m[0].flags == 0 && m[0].len == 4);
	CHECK(m[0].buf == buf && memcmp(buf, "\x24" "abc", 4) == 0);
	/* another address */
	CHECK(tis_i2c_msgs(m, 0x50, 1, 0x48, r, buf, 4) == 2);
	CHECK(m[0].addr == 0x50 && m[1].addr == 0x50 && r[0] == 0x48);
}

int main(void)
{
	test_spi_header();
	test_spi_xfer();
	test_i2c_msgs();
	test_abi();
	return unit_done("tisbus");
}
